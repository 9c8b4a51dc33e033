#!/usr/bin/env bash
# Issue 35's figures in one go (`npm run bench:issue-35`; ~40 min on the 2-vCPU machine; run it
# on a quiet machine): the range storm, full downloads, a new connection per request and HTTPS
# against nginx on the 47 MB and 1 GiB real-bytes ISOs, with HTTP_BODY_IO=portable,
# auto (the default) and sendfile; the new connection per request again with AUTH_TYPE=local (the download_url's
# short token, then an HS256 image token); the agent heartbeat with the default auth and without;
# then CPU profiles of the storm, before (HTTP_BODY_IO=portable: every read on libuv's pool, the
# path before issue 35) and after, summarized by `node bench/run.mjs profile`. Results in
# bench/results/issue-35/.
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/results/issue-35
mkdir -p "$out"
bench() { node bench/run.mjs "$@"; }
for mode in portable auto sendfile; do
	bench --only 1,2,8,11 --size-mib 46 --body-io "$mode" --out "$out/47mb-$mode"
	bench --only 1,2,8,11 --body-io "$mode" --out "$out/1gib-$mode"
done
for auth in local local-jwt; do # a new connection per request with an image credential in the URL
	bench --only 11 --size-mib 46 --auth "$auth" --out "$out/47mb-fresh-$auth"
done
bench --only 6 --no-postgres --out "$out/heartbeat"
for mode in portable auto sendfile; do
	bench --only 2 --repeats 1 --cpu-prof --body-io "$mode" --no-write 2>&1 | tee "$out/profile-$mode.log"
	dir=$(ls -td bench/work/profiles/*/ | head -1) # this run's profiles (bootsmith-main/*.cpuprofile)
	bench profile "$dir" >"$out/profile-$mode.txt"
	# the main thread's profile (the largest; the other is a worker's start), named by mode: open it
	# in Chrome DevTools or speedscope as a flame graph
	cp "$(ls -S "$dir"/bootsmith-main/*.cpuprofile | head -1)" "$out/storm-$mode.cpuprofile"
done
