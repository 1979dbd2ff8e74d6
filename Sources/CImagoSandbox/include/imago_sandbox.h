// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#ifndef IMAGO_SANDBOX_H
#define IMAGO_SANDBOX_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The system calls of isolated decoding, which Swift's Glibc does not import whole (SCM_RIGHTS,
   memfd_create, close_range, posix_spawn's file actions, seccomp, Landlock). Every function
   returns a negative errno on failure unless it says otherwise. */

/* ---- worker processes ------------------------------------------------------------------- */

/* A pair of connected AF_UNIX SOCK_SEQPACKET sockets, both close-on-exec, in fds[0], fds[1]. */
int imago_socketpair(int fds[2]);

/* Starts `path` with `argv` and `envp` (NULL-terminated) through posix_spawn: the child's
   descriptor 3 is `child_fd` (dup2'd, so without close-on-exec), its stdin is /dev/null, its
   stdout and stderr the parent's, its signal mask empty and its signal dispositions default.
   Returns the child's pid. */
pid_t imago_spawn(const char *path, char *const argv[], char *const envp[], int child_fd);

/* waitpid(pid, &status, block ? 0 : WNOHANG), retried on EINTR. Returns the pid when it has
   exited, 0 when it still runs (not blocking), negative errno otherwise. `status` is decoded
   into *exit_code (-1 when killed) and *signal (0 when it exited). */
int imago_wait(pid_t pid, int block, int *exit_code, int *signal);

/* kill(pid, SIGKILL). */
int imago_kill(pid_t pid);

/* Closes every descriptor from `first` up (close_range, falling back to a loop over
   /proc/self/fd's worth of numbers up to the open-files limit). */
int imago_close_from(int first);

/* ---- messages --------------------------------------------------------------------------- */

/* Sends one message of `len` bytes on `sock` with `fd` attached (SCM_RIGHTS) when fd >= 0.
   MSG_NOSIGNAL: a closed peer is -EPIPE, not SIGPIPE. Returns the bytes sent. */
ssize_t imago_send(int sock, const void *buf, size_t len, int fd);

/* Receives one message into `buf` (at most `cap` bytes), waiting at most `timeout_ms`
   milliseconds (-1: no limit; poll, retried on EINTR with the time left). Returns the bytes
   received, 0 when the peer closed, -ETIMEDOUT when the time ran out, -EMSGSIZE when the
   message was longer than `cap` (MSG_TRUNC). A descriptor that came with it is stored in
   *fd (close-on-exec, MSG_CMSG_CLOEXEC), otherwise *fd is -1; any further descriptors are
   closed. */
ssize_t imago_receive(int sock, void *buf, size_t cap, int *fd, int timeout_ms);

/* ---- shared memory ---------------------------------------------------------------------- */

/* memfd_create(name, MFD_CLOEXEC). */
int imago_memfd(const char *name);

/* The size of the file behind `fd` (fstat), or negative errno. */
int64_t imago_file_size(int fd);

/* Writes all `len` bytes at `offset` (pwrite, looping over short writes and EINTR). Returns 0. */
int imago_write_all(int fd, const void *buf, size_t len, int64_t offset);

/* Reads exactly `len` bytes at `offset` (pread, looping). -EIO when the file ends first. */
int imago_read_all(int fd, void *buf, size_t len, int64_t offset);

/* Reads exactly `len` bytes at `address` in process `pid`'s memory (process_vm_readv, looping
   over partial reads) into `buf`: the host reading a worker's pixels where they lie, one copy.
   Returns 0, -EFAULT when a byte of the range is not mapped in that process (or -EIO when it
   ends early), -EPERM/-ENOSYS where the host may not (a seccomp profile, Yama's scope 2). */
int imago_read_process(pid_t pid, uint64_t address, void *buf, size_t len);

/* A worker's heap keeps what it frees for the next decode (glibc: blocks up to 32 MiB from the
   heap, M_MMAP_THRESHOLD, and no trimming below `keep` bytes, M_TRIM_THRESHOLD), instead of
   returning it and faulting in fresh zeroed pages for every decode. Returns 0, or -ENOSYS where
   malloc cannot be tuned. */
int imago_worker_keep_heap(size_t keep);

/* Gives the worker `seconds` more of CPU time, every thread's, from what it has used so far: the
   soft RLIMIT_CPU, moved before each request (the seccomp filter lets a worker set this one limit
   of its own). Past it the kernel sends SIGXCPU, which ends the worker. Capped at the hard limit.
   Returns 0 or -errno. */
int imago_worker_cpu_budget(uint64_t seconds);

/* ---- the sandbox ------------------------------------------------------------------------ */

/* What imago_sandbox_enter is asked to do. Zero values mean "not set" for the limits. */
struct imago_sandbox_options {
    uint64_t address_space_bytes;  /* RLIMIT_AS */
    uint64_t file_size_bytes;      /* RLIMIT_FSIZE (memfd writes count against it) */
    uint64_t open_files;           /* RLIMIT_NOFILE */
    int namespaces;                /* unshare user, network, IPC and mount namespaces; a file system of read_paths */
    int landlock;                  /* Landlock: read-only access to read_paths, nothing else */
    int seccomp;                   /* the seccomp-bpf allow-list, through libseccomp (dlopen'd) */
    const char *const *read_paths; /* directories and files the worker may read (fonts, libraries) */
    size_t read_path_count;
};

/* What was applied (a bitmask of these). */
enum {
    IMAGO_SANDBOX_NO_NEW_PRIVS = 1,
    IMAGO_SANDBOX_RLIMITS = 2,
    IMAGO_SANDBOX_NAMESPACES = 4,
    IMAGO_SANDBOX_LANDLOCK = 8,
    IMAGO_SANDBOX_SECCOMP = 16,
    IMAGO_SANDBOX_FILESYSTEM = 32
};

/* Locks the calling process down, in this order: core dumps off (RLIMIT_CORE 0),
   PR_SET_NO_NEW_PRIVS, the rlimits, unshare(CLONE_NEWUSER | CLONE_NEWNET | CLONE_NEWIPC |
   CLONE_NEWNS) (the process must be single-threaded) and, in the new mount namespace, a file
   system of read_paths alone (a tmpfs root, each path that exists bound read-only onto itself,
   the host's root detached: anything else is ENOENT), Landlock (ABI 1 or 2: every filesystem right
   handled, read-file and read-dir allowed beneath read_paths; paths that do not exist are
   skipped), then the seccomp filter. Must be called while single-threaded.

   Each step that cannot be applied (the kernel lacks it, a container's profile refuses it,
   libseccomp.so.2 is missing) is skipped and named in `report` (one line each, at most
   `report_cap` bytes, NUL-terminated); a step that was asked for and applied sets its bit
   in the result. no_new_privs failing is the only fatal case (returns -errno): without it
   no filter can be installed.

   The seccomp filter (libseccomp, SCMP_ACT_ERRNO(EPERM) for any call not named):
   - kills the process (SCMP_ACT_KILL_PROCESS) on: socket, socketpair, connect, bind, listen,
     accept, accept4, sendto with a destination address, execve, execveat, fork, vfork,
     clone without CLONE_THREAD, ptrace, process_vm_readv, process_vm_writev, setns, unshare,
     mount, umount2, pivot_root, chroot, bpf, perf_event_open, keyctl, add_key, request_key,
     userfaultfd, io_uring_setup, init_module, finit_module, kexec_load, reboot, personality;
   - answers EACCES to open and openat that ask for anything but reading (O_WRONLY, O_RDWR,
     O_CREAT, O_TRUNC), and ENOSYS to clone3 (glibc then uses clone);
   - allows what a decoder and its threads need: memory (brk, mmap, munmap, mremap, mprotect,
     madvise), reading (read, readv, pread64, lseek, fstat, newfstatat, statx, getdents64,
     readlink(at), access, faccessat(2), open/openat for reading, close, dup, dup3, fcntl),
     writing to descriptors it holds (write, writev, pwrite64, ftruncate, fallocate,
     memfd_create), its socket (sendmsg, recvmsg, sendto without an address, recvfrom,
     poll, ppoll, pselect6), threads (clone with CLONE_THREAD, futex, set_robust_list,
     get_robust_list, rseq, set_tid_address, sched_yield, sched_getaffinity, membarrier,
     prctl PR_SET_NAME / PR_GET_NAME), time (clock_gettime, clock_getres, clock_nanosleep,
     nanosleep, gettimeofday, time), signals (rt_sigaction, rt_sigprocmask, rt_sigreturn,
     sigaltstack, restart_syscall, tgkill and tkill (abort raises SIGABRT on itself),
     getpid, gettid, getppid, getuid, geteuid, getgid, getegid), and getrandom, uname,
     sysinfo, getcwd, umask, prlimit64 without a new limit, getrlimit, eventfd2, pipe2,
     exit, exit_group. */
int imago_sandbox_enter(const struct imago_sandbox_options *options, char *report, size_t report_cap);

/* The Landlock ABI version the kernel offers, 0 when none. */
int imago_landlock_abi(void);

#endif
