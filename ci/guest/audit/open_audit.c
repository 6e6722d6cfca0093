// open_audit.so: the host-write audit's record of opens (ci/guest/faults.bash).
// Preloaded into rdmacheck and every program it starts, it appends one line
// per open for writing ("PID open FLAGS PATH") to $RDMACHECK_OPEN_AUDIT, then
// lets the open go ahead unchanged. strace covers the rarer calls; opens are
// thousands per run (every sysfs read), and stopping at each under ptrace
// doubled a run's time in the emulated guest, where this costs nothing
// measurable.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static void Record(const char* call, int dirfd, const char* path, int flags, const char* mode) {
  if (mode == NULL && (flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND)) == 0) return;
  if (mode != NULL && strpbrk(mode, "wa+") == NULL) return;
  const char* log = getenv("RDMACHECK_OPEN_AUDIT");
  if (log == NULL || path == NULL) return;
  char cwd[512] = "";
  if (path[0] != '/' && dirfd == AT_FDCWD && getcwd(cwd, sizeof cwd) == NULL) cwd[0] = '\0';
  char line[1400];
  int n = snprintf(line, sizeof line, "%d %s %s%s%s%s%s\n", (int)getpid(), call, mode ? mode : "",
                   mode ? " " : "", cwd, cwd[0] ? "/" : "", path);
  if (mode == NULL)
    n = snprintf(line, sizeof line, "%d %s 0x%x %s%s%s%s\n", (int)getpid(), call, (unsigned)flags,
                 dirfd != AT_FDCWD && path[0] != '/' ? "(dirfd)" : "", cwd, cwd[0] ? "/" : "", path);
  // O_APPEND writes of under PIPE_BUF bytes do not interleave between processes.
  int fd = (int)syscall(SYS_openat, AT_FDCWD, log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  if (n > 0) (void)!write(fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
  close(fd);
}

#define NEXT(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))

static mode_t ModeArg(int flags, va_list ap) {
  return (flags & (O_CREAT | __O_TMPFILE)) ? va_arg(ap, mode_t) : 0;
}

int open(const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  mode_t m = ModeArg(flags, ap);
  va_end(ap);
  Record("open", AT_FDCWD, path, flags, NULL);
  return NEXT(open)(path, flags, m);
}
int open64(const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  mode_t m = ModeArg(flags, ap);
  va_end(ap);
  Record("open", AT_FDCWD, path, flags, NULL);
  return NEXT(open64)(path, flags, m);
}
int openat(int dirfd, const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  mode_t m = ModeArg(flags, ap);
  va_end(ap);
  Record("openat", dirfd, path, flags, NULL);
  return NEXT(openat)(dirfd, path, flags, m);
}
int openat64(int dirfd, const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  mode_t m = ModeArg(flags, ap);
  va_end(ap);
  Record("openat", dirfd, path, flags, NULL);
  return NEXT(openat64)(dirfd, path, flags, m);
}
int creat(const char* path, mode_t m) {
  Record("creat", AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, NULL);
  return NEXT(creat)(path, m);
}
int creat64(const char* path, mode_t m) {
  Record("creat", AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, NULL);
  return NEXT(creat64)(path, m);
}
// glibc's stdio opens through its own internal open, not the one above.
FILE* fopen(const char* path, const char* mode) {
  Record("fopen", AT_FDCWD, path, 0, mode);
  return NEXT(fopen)(path, mode);
}
FILE* fopen64(const char* path, const char* mode) {
  Record("fopen", AT_FDCWD, path, 0, mode);
  return NEXT(fopen64)(path, mode);
}
FILE* freopen(const char* path, const char* mode, FILE* f) {
  Record("freopen", AT_FDCWD, path, 0, mode);
  return NEXT(freopen)(path, mode, f);
}
FILE* freopen64(const char* path, const char* mode, FILE* f) {
  Record("freopen", AT_FDCWD, path, 0, mode);
  return NEXT(freopen64)(path, mode, f);
}
