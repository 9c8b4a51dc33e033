# The kernel I/O addon (native/kernel-io.c), built at install by scripts/build-native.mjs.
{
  "targets": [
    {
      "target_name": "kernel_io",
      "sources": ["native/kernel-io.c"],
      "cflags": ["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter"],
      "defines": ["NAPI_VERSION=8"],
      "conditions": [["OS!='linux'", { "type": "none" }]]
    }
  ]
}
