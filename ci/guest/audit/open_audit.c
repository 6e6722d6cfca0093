// open_audit.so: the host-write audit's record of calls (ci/guest/faults.bash).
// Preloaded into rdmacheck and every program it starts, it appends one line
// per call that could change the host to $RDMACHECK_OPEN_AUDIT, then lets the
// call go ahead unchanged:
//   PID open FLAGS PATH / PID fopen MODE PATH   an open for writing
//   PID fs CALL PATH                            rename, unlink, mkdir, ...
//   PID spawn PROG ARG...                       a program started
//   PID netlink PROTO TYPE FLAGS                each message sent on a netlink socket
//   PID start EXE                               the preload loaded into a program
// It is what audits every scenario's run: under ptrace (strace, even with
// --seccomp-bpf and no call stopped, even attached after start) the probes'
// data path ran 3-6x slower in the emulated guest, past their deadlines,
// while this costs about as much as the runs vary (faults.bash prints it). strace still audits one run of each
// kind (the audit step), as the check on this record: it sees raw system
// calls, which a preload cannot (a static program, a direct syscall()).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netlink.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

static void Append(const char* line, int n) {
  const char* log = getenv("RDMACHECK_OPEN_AUDIT");
  if (log == NULL || n <= 0) return;
  // O_APPEND writes of under PIPE_BUF bytes do not interleave between processes.
  int fd = (int)syscall(SYS_openat, AT_FDCWD, log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  (void)!write(fd, line, (size_t)n);
  close(fd);
}

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
  Append(line, (size_t)n < sizeof line ? n : (int)sizeof line - 1);
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

// --- the calls other than open ----------------------------------------------

// "PID start PROG": the record shows the preload was loaded into each
// program (a run that wrote nothing leaves no other line).
__attribute__((constructor)) static void RecordStart(void) {
  if (getenv("RDMACHECK_OPEN_AUDIT") == NULL) return;
  char exe[512];
  ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
  exe[k > 0 ? k : 0] = '\0';
  char line[600];
  int n = snprintf(line, sizeof line, "%d start %s\n", (int)getpid(), exe);
  Append(line, (size_t)n < sizeof line ? n : (int)sizeof line - 1);
}

static void RecordFs(const char* call, const char* path) {
  if (getenv("RDMACHECK_OPEN_AUDIT") == NULL || path == NULL) return;
  char cwd[512] = "";
  if (path[0] != '/' && getcwd(cwd, sizeof cwd) == NULL) cwd[0] = '\0';
  char line[1400];
  int n = snprintf(line, sizeof line, "%d fs %s %s%s%s\n", (int)getpid(), call, cwd, cwd[0] ? "/" : "", path);
  Append(line, (size_t)n < sizeof line ? n : (int)sizeof line - 1);
}

#define FS1(name, T2)                       \
  int name(const char* p, T2 a) {           \
    RecordFs(#name, p);                     \
    return NEXT(name)(p, a);                \
  }
FS1(mkdir, mode_t)
FS1(chmod, mode_t)
FS1(truncate, off_t)
FS1(rename, const char*)
FS1(link, const char*)
int unlink(const char* p) {
  RecordFs("unlink", p);
  return NEXT(unlink)(p);
}
int rmdir(const char* p) {
  RecordFs("rmdir", p);
  return NEXT(rmdir)(p);
}
int symlink(const char* target, const char* p) {
  RecordFs("symlink", p);
  return NEXT(symlink)(target, p);
}
int chown(const char* p, uid_t u, gid_t g) {
  RecordFs("chown", p);
  return NEXT(chown)(p, u, g);
}
int unlinkat(int dirfd, const char* p, int flags) {
  RecordFs("unlinkat", p);
  return NEXT(unlinkat)(dirfd, p, flags);
}
int mkdirat(int dirfd, const char* p, mode_t m) {
  RecordFs("mkdirat", p);
  return NEXT(mkdirat)(dirfd, p, m);
}
int renameat(int od, const char* o, int nd, const char* p) {
  RecordFs("renameat", p);
  return NEXT(renameat)(od, o, nd, p);
}

// posix_spawn(p) and the exec family: the program and its arguments.
static void RecordSpawn(const char* prog, char* const argv[]) {
  if (getenv("RDMACHECK_OPEN_AUDIT") == NULL) return;
  char line[1400];
  int n = snprintf(line, sizeof line, "%d spawn", (int)getpid());
  for (int i = 0; argv != NULL && argv[i] != NULL && n > 0 && (size_t)n < sizeof line - 2; ++i)
    n += snprintf(line + n, sizeof line - (size_t)n, " %s", argv[i]);
  if (argv == NULL || argv[0] == NULL) n += snprintf(line + n, sizeof line - (size_t)n, " %s", prog);
  if ((size_t)n >= sizeof line - 1) n = (int)sizeof line - 2;
  line[n++] = '\n';
  Append(line, n);
}
int posix_spawn(pid_t* pid, const char* path, const posix_spawn_file_actions_t* fa,
                const posix_spawnattr_t* attr, char* const argv[], char* const envp[]) {
  RecordSpawn(path, argv);
  return NEXT(posix_spawn)(pid, path, fa, attr, argv, envp);
}
int posix_spawnp(pid_t* pid, const char* file, const posix_spawn_file_actions_t* fa,
                 const posix_spawnattr_t* attr, char* const argv[], char* const envp[]) {
  RecordSpawn(file, argv);
  return NEXT(posix_spawnp)(pid, file, fa, attr, argv, envp);
}
int execve(const char* path, char* const argv[], char* const envp[]) {
  RecordSpawn(path, argv);
  return NEXT(execve)(path, argv, envp);
}
int execvp(const char* file, char* const argv[]) {
  RecordSpawn(file, argv);
  return NEXT(execvp)(file, argv);
}
int execvpe(const char* file, char* const argv[], char* const envp[]) {
  RecordSpawn(file, argv);
  return NEXT(execvpe)(file, argv, envp);
}
int execv(const char* path, char* const argv[]) {
  RecordSpawn(path, argv);
  return NEXT(execv)(path, argv);
}

// Netlink: one line per message header in what is sent, with the socket's
// protocol (NETLINK_ROUTE 0, NETLINK_NETFILTER 12, NETLINK_RDMA 20).
static void RecordNetlink(int fd, const void* buf, size_t len) {
  if (getenv("RDMACHECK_OPEN_AUDIT") == NULL || buf == NULL) return;
  struct sockaddr_storage sa;
  socklen_t sl = sizeof sa;
  if (getsockname(fd, (struct sockaddr*)&sa, &sl) != 0 || sa.ss_family != AF_NETLINK) return;
  int proto = -1;
  socklen_t pl = sizeof proto;
  if (getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &proto, &pl) != 0) proto = -1;
  const char* p = (const char*)buf;
  size_t off = 0;
  for (int i = 0; i < 64 && off + sizeof(struct nlmsghdr) <= len; ++i) {
    struct nlmsghdr h;
    memcpy(&h, p + off, sizeof h);
    char line[128];
    int n = snprintf(line, sizeof line, "%d netlink %d %u 0x%x\n", (int)getpid(), proto, (unsigned)h.nlmsg_type,
                     (unsigned)h.nlmsg_flags);
    Append(line, n);
    if (h.nlmsg_len < sizeof h) break;
    off += NLMSG_ALIGN(h.nlmsg_len);
  }
}
ssize_t send(int fd, const void* buf, size_t len, int flags) {
  RecordNetlink(fd, buf, len);
  return NEXT(send)(fd, buf, len, flags);
}
ssize_t sendto(int fd, const void* buf, size_t len, int flags, const struct sockaddr* to, socklen_t tl) {
  RecordNetlink(fd, buf, len);
  return NEXT(sendto)(fd, buf, len, flags, to, tl);
}
ssize_t sendmsg(int fd, const struct msghdr* m, int flags) {
  // A message may span iovecs only at header boundaries in practice (libmnl,
  // iproute2 and libnl put whole messages in each).
  for (size_t i = 0; m != NULL && i < m->msg_iovlen; ++i) RecordNetlink(fd, m->msg_iov[i].iov_base, m->msg_iov[i].iov_len);
  return NEXT(sendmsg)(fd, m, flags);
}
