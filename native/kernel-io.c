// bootsmith's kernel I/O shortcuts for the serving path (Linux), as a small Node-API addon.
//
// Does: sendfile(2) from a file descriptor to a non-blocking socket descriptor (one copy, page
// cache to socket, instead of a read into user memory and a write); say whether a file range sits
// wholly in the page cache (cachestat(2), else mincore(2) over a throw-away mapping), so that a
// caller never lets the event loop wait on the disk; a positional read that refuses to wait for the
// disk (preadv2 with RWF_NOWAIT); a read-only shared mapping of a whole file as an ArrayBuffer
// (unmapped when the last view of it is collected), for writes straight from the page cache to a
// socket, whether a range of such a mapping is in memory (mincore(2) on it) and letting go of its
// file at once (the base file's close); send(2) without
// SIGPIPE; dup/close of a socket descriptor; TCP_CORK; and a writability watch (a libuv poll
// handle on a duplicated descriptor, so it never shares libuv's watcher slot with the TCP handle
// Node drives on the original one).
// Does NOT: own sockets or files, decide what to send, keep any per-request state, or block: every
// call returns at once (bytes done, or a negative errno such as -EAGAIN).
//
// Built at install by scripts/build-native.mjs (node-gyp, binding.gyp); when it cannot be built or
// loaded, src/kernel-io/native-binding.ts reports why and the service copies through user space.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <node_api.h>
#include <uv.h>

#ifndef __NR_cachestat
#define __NR_cachestat 451 /* the same number on every architecture (asm-generic and x86_64) */
#endif

/** sendfile(2) moves at most this much per call (Linux: 0x7ffff000). */
#define SENDFILE_MAX ((size_t)0x7ffff000)
/** mincore vectors up to this many pages live on the stack. */
#define STACK_PAGES 1024

struct bs_cachestat_range {
  uint64_t off;
  uint64_t len;
};

struct bs_cachestat {
  uint64_t nr_cache;
  uint64_t nr_dirty;
  uint64_t nr_writeback;
  uint64_t nr_evicted;
  uint64_t nr_recently_evicted;
};

static int cachestat_unavailable = 0;

#define CHECK(call)                                                                         \
  do {                                                                                      \
    if ((call) != napi_ok) {                                                                \
      napi_throw_error(env, NULL, "kernel-io: " #call " failed");                          \
      return NULL;                                                                          \
    }                                                                                       \
  } while (0)

static napi_value number(napi_env env, double value) {
  napi_value result;
  if (napi_create_double(env, value, &result) != napi_ok) return NULL;
  return result;
}

/**
 * Reads `count` arguments into `out`; each must be a number, except the one at `other` (-1: none),
 * which is handed back in `raw` for the caller to check.
 */
static int numbers(napi_env env, napi_callback_info info, size_t count, double* out, int other, napi_value* raw) {
  size_t argc = count;
  napi_value argv[6];
  if (count > 6 || napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < count) {
    napi_throw_type_error(env, NULL, "kernel-io: missing arguments");
    return 0;
  }
  for (size_t i = 0; i < count; i++) {
    if ((int)i == other) {
      *raw = argv[i];
      continue;
    }
    napi_valuetype type;
    if (napi_typeof(env, argv[i], &type) != napi_ok || type != napi_number) {
      napi_throw_type_error(env, NULL, "kernel-io: expected a number");
      return 0;
    }
    napi_get_value_double(env, argv[i], &out[i]);
  }
  return 1;
}

/** sendFile(outFd, inFd, position, length): bytes sent (0 at end of file), or -errno (-EAGAIN: the socket is full). */
static napi_value SendFile(napi_env env, napi_callback_info info) {
  double a[4];
  if (!numbers(env, info, 4, a, -1, NULL)) return NULL;
  int out = (int)a[0], in = (int)a[1];
  off_t offset = (off_t)a[2];
  size_t left = (size_t)a[3];
  double sent = 0;
  while (left > 0) {
    size_t want = left > SENDFILE_MAX ? SENDFILE_MAX : left;
    ssize_t n = sendfile(out, in, &offset, want);
    if (n > 0) {
      sent += (double)n;
      left -= (size_t)n;
      if ((size_t)n < want) break; /* the socket's buffer is full: the next call would say EAGAIN */
      continue;
    }
    if (n == 0) break; /* end of file */
    if (errno == EINTR) continue;
    if (sent > 0) break; /* report the progress; the next call reports the error */
    return number(env, -errno);
  }
  return number(env, sent);
}

/** send(fd, buffer, offset, length): bytes sent (MSG_NOSIGNAL, never blocking), or -errno. */
static napi_value Send(napi_env env, napi_callback_info info) {
  double a[4];
  napi_value buffer = NULL;
  if (!numbers(env, info, 4, a, 1, &buffer)) return NULL;
  void* data;
  size_t size;
  bool is_buffer = false;
  if (napi_is_buffer(env, buffer, &is_buffer) != napi_ok || !is_buffer ||
      napi_get_buffer_info(env, buffer, &data, &size) != napi_ok) {
    napi_throw_type_error(env, NULL, "kernel-io: send needs a Buffer");
    return NULL;
  }
  size_t at = (size_t)a[2], length = (size_t)a[3];
  if (at > size || length > size - at) {
    napi_throw_range_error(env, NULL, "kernel-io: send outside the buffer");
    return NULL;
  }
  for (;;) {
    ssize_t n = send((int)a[0], (char*)data + at, length, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n >= 0) return number(env, (double)n);
    if (errno != EINTR) return number(env, -errno);
  }
}

/** 1 when every one of the `pages` pages at `addr` (a mapping) is in memory, 0 when not, -errno. */
static int all_resident(void* addr, uint64_t pages, uint64_t page) {
  unsigned char stack[STACK_PAGES];
  unsigned char* vec = pages <= STACK_PAGES ? stack : malloc(pages);
  if (vec == NULL) return -ENOMEM;
  int result = 1;
  if (mincore(addr, pages * page, vec) != 0) {
    result = -errno;
  } else {
    for (uint64_t i = 0; i < pages; i++) {
      if (!(vec[i] & 1)) {
        result = 0;
        break;
      }
    }
  }
  if (vec != stack) free(vec);
  return result;
}

static int resident_by_mincore(int fd, uint64_t first, uint64_t pages, long page) {
  void* addr = mmap(NULL, pages * (uint64_t)page, PROT_READ, MAP_SHARED, fd, (off_t)(first * (uint64_t)page));
  if (addr == MAP_FAILED) return -errno;
  int result = all_resident(addr, pages, (uint64_t)page);
  munmap(addr, pages * (uint64_t)page);
  return result;
}

/** residency(fd, position, length): 1 when every page of the range is in the page cache, 0 when not, -errno when unknown. */
static napi_value Residency(napi_env env, napi_callback_info info) {
  double a[3];
  if (!numbers(env, info, 3, a, -1, NULL)) return NULL;
  int fd = (int)a[0];
  uint64_t position = (uint64_t)a[1], length = (uint64_t)a[2];
  if (length == 0) return number(env, 1);
  long page = sysconf(_SC_PAGESIZE);
  uint64_t first = position / (uint64_t)page;
  uint64_t pages = (position + length - 1) / (uint64_t)page - first + 1;
  if (!cachestat_unavailable) {
    struct bs_cachestat_range range = {position, length};
    struct bs_cachestat cs;
    memset(&cs, 0, sizeof cs);
    if (syscall(__NR_cachestat, fd, &range, &cs, 0) == 0) return number(env, cs.nr_cache >= pages ? 1 : 0);
    if (errno == ENOSYS) cachestat_unavailable = 1;
  }
  return number(env, resident_by_mincore(fd, first, pages, page));
}

/** readNoWait(fd, buffer, bufferOffset, length, position): bytes read from the page cache alone, or -errno (-EAGAIN: not cached). */
static napi_value ReadNoWait(napi_env env, napi_callback_info info) {
  double a[5];
  napi_value buffer = NULL;
  if (!numbers(env, info, 5, a, 1, &buffer)) return NULL;
  void* data;
  size_t size;
  bool is_buffer = false;
  if (napi_is_buffer(env, buffer, &is_buffer) != napi_ok || !is_buffer ||
      napi_get_buffer_info(env, buffer, &data, &size) != napi_ok) {
    napi_throw_type_error(env, NULL, "kernel-io: readNoWait needs a Buffer");
    return NULL;
  }
  size_t at = (size_t)a[2], length = (size_t)a[3];
  if (at > size || length > size - at) {
    napi_throw_range_error(env, NULL, "kernel-io: readNoWait outside the buffer");
    return NULL;
  }
  struct iovec iov = {(char*)data + at, length};
  for (;;) {
    ssize_t n = preadv2((int)a[0], &iov, 1, (off_t)a[4], RWF_NOWAIT);
    if (n >= 0) return number(env, (double)n);
    if (errno != EINTR) return number(env, -errno);
  }
}

static void unmap(napi_env env, void* data, void* hint) {
  (void)env;
  munmap(data, (size_t)(uintptr_t)hint);
}

/**
 * mapFile(fd, length): a read-only MAP_SHARED mapping of the file's first `length` bytes as an
 * external ArrayBuffer, unmapped by its finalizer; or -errno. Its bytes are the page cache's: a
 * caller hands views of it to the kernel (write/writev, which answer EFAULT for a page the file no
 * longer has) and never reads them in user space, where such a page is a SIGBUS.
 */
static napi_value MapFile(napi_env env, napi_callback_info info) {
  double a[2];
  if (!numbers(env, info, 2, a, -1, NULL)) return NULL;
  size_t length = (size_t)a[1];
  if (length == 0) return number(env, -EINVAL);
  void* addr = mmap(NULL, length, PROT_READ, MAP_SHARED, (int)a[0], 0);
  if (addr == MAP_FAILED) return number(env, -errno);
  napi_value buffer;
  if (napi_create_external_arraybuffer(env, addr, length, unmap, (void*)(uintptr_t)length, &buffer) != napi_ok) {
    munmap(addr, length);
    napi_throw_error(env, NULL, "kernel-io: napi_create_external_arraybuffer failed");
    return NULL;
  }
  return buffer;
}

/** The address and length of a mapFile() mapping passed to `fn`; 0 (a TypeError thrown) when it is not one. */
static int mapping_of(napi_env env, napi_value value, const char* fn, void** data, size_t* size) {
  bool is_arraybuffer = false;
  if (napi_is_arraybuffer(env, value, &is_arraybuffer) != napi_ok || !is_arraybuffer ||
      napi_get_arraybuffer_info(env, value, data, size) != napi_ok || *data == NULL || *size == 0) {
    char message[96];
    snprintf(message, sizeof message, "kernel-io: %s needs a mapFile() mapping", fn);
    napi_throw_type_error(env, NULL, message);
    return 0;
  }
  return 1;
}

/**
 * releaseMapping(mapping): lets go of a mapFile() mapping's file now, before the ArrayBuffer is
 * collected: its range becomes an inaccessible anonymous reservation (so an unlinked file's blocks
 * are freed, and no later mapping can take the address while a stale view still points there: a
 * write of one fails with EFAULT instead of sending another file's bytes). The finalizer unmaps the
 * reservation. 0 or -errno.
 */
static napi_value ReleaseMapping(napi_env env, napi_callback_info info) {
  double unused[1];
  napi_value mapping = NULL;
  void* data;
  size_t size;
  if (!numbers(env, info, 1, unused, 0, &mapping) || !mapping_of(env, mapping, "releaseMapping", &data, &size))
    return NULL;
  void* at = mmap(data, size, PROT_NONE, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return number(env, at == MAP_FAILED ? -errno : 0);
}

/**
 * mappedResidency(mapping, position, length): 1 when every page of bytes position..+length of a
 * mapFile() mapping is in memory, 0 when not, -errno. mincore(2) over the mapping itself: pages
 * this process already wrote from are answered from its page tables, without the page cache's
 * lookup that residency() makes.
 */
static napi_value MappedResidency(napi_env env, napi_callback_info info) {
  double a[3];
  napi_value mapping = NULL;
  void* data;
  size_t size;
  if (!numbers(env, info, 3, a, 0, &mapping) || !mapping_of(env, mapping, "mappedResidency", &data, &size))
    return NULL;
  uint64_t position = (uint64_t)a[1], length = (uint64_t)a[2];
  if (position > size || length > size - position) {
    napi_throw_range_error(env, NULL, "kernel-io: mappedResidency outside the mapping");
    return NULL;
  }
  if (length == 0) return number(env, 1);
  uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
  uint64_t first = position / page;
  uint64_t pages = (position + length - 1) / page - first + 1;
  return number(env, all_resident((char*)data + first * page, pages, page));
}

/** dup(fd) with close-on-exec: the new descriptor, or -errno. */
static napi_value Dup(napi_env env, napi_callback_info info) {
  double a[1];
  if (!numbers(env, info, 1, a, -1, NULL)) return NULL;
  int fd = fcntl((int)a[0], F_DUPFD_CLOEXEC, 0);
  return number(env, fd >= 0 ? fd : -errno);
}

static napi_value Close(napi_env env, napi_callback_info info) {
  double a[1];
  if (!numbers(env, info, 1, a, -1, NULL)) return NULL;
  return number(env, close((int)a[0]) == 0 ? 0 : -errno);
}

/** setCork(fd, on): TCP_CORK on or off (off sends what it held); 0 or -errno. */
static napi_value SetCork(napi_env env, napi_callback_info info) {
  double a[2];
  if (!numbers(env, info, 2, a, -1, NULL)) return NULL;
  int on = a[1] != 0;
  return number(env, setsockopt((int)a[0], IPPROTO_TCP, TCP_CORK, &on, sizeof on) == 0 ? 0 : -errno);
}

/* ---- WritableWatch: one libuv poll handle on a descriptor of the caller's own (a dup) ---- */

typedef struct watch_s watch_t;

typedef struct {
  watch_t* head; /* open watches of this environment, closed by the cleanup hook */
} instance_t;

struct watch_s {
  uv_poll_t poll;
  napi_env env;
  instance_t* instance;
  napi_ref callback; /* strong */
  napi_ref self;     /* strong while started, so the object outlives a pending wait */
  napi_async_context async;
  int started;
  int closed;
  int holds; /* the JS wrapper and the libuv handle: the memory goes when both let go */
  watch_t* prev;
  watch_t* next;
};

static void unlink_watch(watch_t* w) {
  if (w->prev) w->prev->next = w->next;
  else if (w->instance->head == w) w->instance->head = w->next;
  if (w->next) w->next->prev = w->prev;
  w->prev = w->next = NULL;
}

static void let_go(watch_t* w) {
  if (--w->holds == 0) free(w);
}

static void on_closed(uv_handle_t* handle) { let_go(handle->data); }

static void release_self(watch_t* w) {
  if (w->self != NULL) {
    napi_delete_reference(w->env, w->self);
    w->self = NULL;
  }
}

/**
 * Stops and closes the poll handle and drops the references (in an environment's teardown, N-API
 * may not be called: the references die with it). The memory goes once libuv's close callback and
 * the wrapper's finalizer (or close()) have both let go.
 */
static void close_watch(watch_t* w, int in_teardown) {
  if (w->closed) return;
  w->closed = 1;
  unlink_watch(w);
  if (w->started) uv_poll_stop(&w->poll);
  w->started = 0;
  if (!in_teardown) {
    release_self(w);
    if (w->callback) napi_delete_reference(w->env, w->callback);
    if (w->async) napi_async_destroy(w->env, w->async);
  }
  w->callback = NULL;
  w->self = NULL;
  w->async = NULL;
  uv_close((uv_handle_t*)&w->poll, on_closed);
}

static void on_poll(uv_poll_t* handle, int status, int events) {
  (void)events;
  watch_t* w = handle->data;
  if (w->closed || !w->started) return;
  uv_poll_stop(&w->poll); /* one wake-up per start(): the caller sends, then starts again if still full */
  w->started = 0;
  napi_env env = w->env;
  napi_handle_scope scope;
  if (napi_open_handle_scope(env, &scope) != napi_ok) return;
  napi_value self = NULL, callback = NULL, argv[1], ignored;
  if (w->self) napi_get_reference_value(env, w->self, &self);
  if (w->callback) napi_get_reference_value(env, w->callback, &callback);
  if (self != NULL && callback != NULL && napi_create_int32(env, status, &argv[0]) == napi_ok) {
    napi_ref held = w->self;
    w->self = NULL; /* the object may be collected again once nothing waits */
    napi_make_callback(env, w->async, self, callback, 1, argv, &ignored);
    napi_delete_reference(env, held);
  }
  napi_close_handle_scope(env, scope);
}

static void finalize_watch(napi_env env, void* data, void* hint) {
  (void)env;
  (void)hint;
  watch_t* w = data;
  close_watch(w, 0);
  let_go(w);
}

static watch_t* unwrap(napi_env env, napi_callback_info info, napi_value* self_out) {
  napi_value self;
  void* data = NULL;
  if (napi_get_cb_info(env, info, NULL, NULL, &self, NULL) != napi_ok) return NULL;
  if (napi_unwrap(env, self, &data) != napi_ok || data == NULL) {
    napi_throw_error(env, NULL, "kernel-io: not a WritableWatch");
    return NULL;
  }
  if (self_out) *self_out = self;
  return data;
}

/** new WritableWatch(fd, callback): callback(status) runs once per start() when fd can take bytes. */
static napi_value WatchNew(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2], self;
  CHECK(napi_get_cb_info(env, info, &argc, argv, &self, NULL));
  napi_valuetype t0, t1;
  if (argc < 2 || napi_typeof(env, argv[0], &t0) != napi_ok || napi_typeof(env, argv[1], &t1) != napi_ok ||
      t0 != napi_number || t1 != napi_function) {
    napi_throw_type_error(env, NULL, "kernel-io: new WritableWatch(fd, callback)");
    return NULL;
  }
  int32_t fd;
  instance_t* instance;
  uv_loop_t* loop;
  napi_value name;
  CHECK(napi_get_value_int32(env, argv[0], &fd));
  CHECK(napi_get_instance_data(env, (void**)&instance));
  CHECK(napi_get_uv_event_loop(env, &loop));
  CHECK(napi_create_string_utf8(env, "bootsmith.WritableWatch", NAPI_AUTO_LENGTH, &name));
  watch_t* w = calloc(1, sizeof *w);
  if (w == NULL) {
    napi_throw_error(env, NULL, "kernel-io: out of memory");
    return NULL;
  }
  w->env = env;
  w->instance = instance;
  if (napi_async_init(env, self, name, &w->async) != napi_ok ||
      napi_create_reference(env, argv[1], 1, &w->callback) != napi_ok) {
    if (w->async) napi_async_destroy(env, w->async);
    free(w);
    napi_throw_error(env, NULL, "kernel-io: WritableWatch setup failed");
    return NULL;
  }
  int rc = uv_poll_init(loop, &w->poll, fd);
  if (rc != 0) {
    napi_delete_reference(env, w->callback);
    napi_async_destroy(env, w->async);
    free(w);
    napi_throw_error(env, uv_err_name(rc), uv_strerror(rc));
    return NULL;
  }
  w->poll.data = w;
  w->holds = 2;
  w->next = instance->head;
  if (instance->head) instance->head->prev = w;
  instance->head = w;
  if (napi_wrap(env, self, w, finalize_watch, NULL, NULL) != napi_ok) {
    close_watch(w, 0);
    let_go(w);
    napi_throw_error(env, NULL, "kernel-io: napi_wrap failed");
    return NULL;
  }
  return self;
}

static napi_value WatchStart(napi_env env, napi_callback_info info) {
  napi_value self;
  watch_t* w = unwrap(env, info, &self);
  if (w == NULL) return NULL;
  if (w->closed) {
    napi_throw_error(env, NULL, "kernel-io: the watch is closed");
    return NULL;
  }
  if (!w->started) {
    int rc = uv_poll_start(&w->poll, UV_WRITABLE | UV_DISCONNECT, on_poll);
    if (rc != 0) {
      napi_throw_error(env, uv_err_name(rc), uv_strerror(rc));
      return NULL;
    }
    w->started = 1;
    if (w->self == NULL) CHECK(napi_create_reference(env, self, 1, &w->self));
  }
  return NULL;
}

static napi_value WatchStop(napi_env env, napi_callback_info info) {
  watch_t* w = unwrap(env, info, NULL);
  if (w == NULL || w->closed || !w->started) return NULL;
  uv_poll_stop(&w->poll);
  w->started = 0;
  release_self(w);
  return NULL;
}

/** close(): stops the watch for good (the descriptor itself is the caller's to close, after this). */
static napi_value WatchClose(napi_env env, napi_callback_info info) {
  napi_value self;
  watch_t* w = unwrap(env, info, &self);
  if (w == NULL) return NULL;
  void* ignored;
  napi_remove_wrap(env, self, &ignored); /* no finalizer will run: let go here */
  close_watch(w, 0);
  let_go(w);
  return NULL;
}

static void teardown(void* arg) {
  instance_t* instance = arg;
  while (instance->head) close_watch(instance->head, 1);
}

static void free_instance(napi_env env, void* data, void* hint) {
  (void)env;
  (void)hint;
  free(data);
}

NAPI_MODULE_INIT() {
  instance_t* instance = calloc(1, sizeof *instance);
  if (instance == NULL) return NULL;
  CHECK(napi_set_instance_data(env, instance, free_instance, NULL));
  CHECK(napi_add_env_cleanup_hook(env, teardown, instance));
  napi_property_descriptor functions[] = {
      {"sendFile", NULL, SendFile, NULL, NULL, NULL, napi_enumerable, NULL},
      {"send", NULL, Send, NULL, NULL, NULL, napi_enumerable, NULL},
      {"residency", NULL, Residency, NULL, NULL, NULL, napi_enumerable, NULL},
      {"readNoWait", NULL, ReadNoWait, NULL, NULL, NULL, napi_enumerable, NULL},
      {"mapFile", NULL, MapFile, NULL, NULL, NULL, napi_enumerable, NULL},
      {"mappedResidency", NULL, MappedResidency, NULL, NULL, NULL, napi_enumerable, NULL},
      {"releaseMapping", NULL, ReleaseMapping, NULL, NULL, NULL, napi_enumerable, NULL},
      {"dup", NULL, Dup, NULL, NULL, NULL, napi_enumerable, NULL},
      {"close", NULL, Close, NULL, NULL, NULL, napi_enumerable, NULL},
      {"setCork", NULL, SetCork, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  CHECK(napi_define_properties(env, exports, sizeof functions / sizeof functions[0], functions));
  napi_property_descriptor methods[] = {
      {"start", NULL, WatchStart, NULL, NULL, NULL, napi_default, NULL},
      {"stop", NULL, WatchStop, NULL, NULL, NULL, napi_default, NULL},
      {"close", NULL, WatchClose, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_value watch;
  CHECK(napi_define_class(env, "WritableWatch", NAPI_AUTO_LENGTH, WatchNew, NULL, 3, methods, &watch));
  CHECK(napi_set_named_property(env, exports, "WritableWatch", watch));
  napi_value eagain;
  CHECK(napi_create_int32(env, EAGAIN, &eagain));
  CHECK(napi_set_named_property(env, exports, "EAGAIN", eagain));
  return exports;
}
