// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#define _GNU_SOURCE
#include "imago_sandbox.h"

#include <errno.h>

#if defined(__linux__)
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

// Worker processes, the messages between them and the server, and the shared memory those messages hand over.

/* ---- worker processes ------------------------------------------------------------------- */

int imago_socketpair(int fds[2]) {
    if (fds == NULL) return -EINVAL;
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) != 0) return -errno;
    return 0;
}

pid_t imago_spawn(const char *path, char *const argv[], char *const envp[], int child_fd) {
    if (path == NULL || argv == NULL || child_fd < 0) return -EINVAL;
    // dup2 onto its own number leaves close-on-exec set (POSIX lets posix_spawn skip the call), so a
    // descriptor that already is 3 goes to the child through a copy, which exec then closes.
    int source = child_fd, copy = -1;
    if (child_fd == 3) {
        copy = fcntl(child_fd, F_DUPFD_CLOEXEC, 4);
        if (copy < 0) return -errno;
        source = copy;
    }
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    int rc = posix_spawn_file_actions_init(&actions);
    if (rc != 0) {
        if (copy >= 0) close(copy);
        return -rc;
    }
    rc = posix_spawnattr_init(&attributes);
    if (rc != 0) {
        posix_spawn_file_actions_destroy(&actions);
        if (copy >= 0) close(copy);
        return -rc;
    }
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    pid_t pid = -1;
    // The dup2 comes first: when child_fd is 0, 1 or 2 it is copied before /dev/null takes descriptor 0.
    rc = posix_spawn_file_actions_adddup2(&actions, source, 3);
    if (rc == 0) rc = posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    if (rc == 0) rc = posix_spawnattr_setsigmask(&attributes, &none);
    if (rc == 0) rc = posix_spawnattr_setsigdefault(&attributes, &all);
    if (rc == 0) rc = posix_spawnattr_setflags(&attributes, (short)(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF));
    if (rc == 0) rc = posix_spawn(&pid, path, &actions, &attributes, argv, envp != NULL ? envp : environ);
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    if (copy >= 0) close(copy);
    return rc == 0 ? pid : -rc;
}

int imago_wait(pid_t pid, int block, int *exit_code, int *signal) {
    if (pid <= 0) return -EINVAL;
    int status = 0;
    pid_t done;
    do {
        done = waitpid(pid, &status, block ? 0 : WNOHANG);
    } while (done < 0 && errno == EINTR);
    if (done < 0) return -errno;
    if (done == 0) return 0;
    int code = -1, number = 0;
    if (WIFEXITED(status)) {
        code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        number = WTERMSIG(status);
    }
    if (exit_code != NULL) *exit_code = code;
    if (signal != NULL) *signal = number;
    return (int)done;
}

int imago_kill(pid_t pid) {
    // 0 and negative numbers name process groups (-1: every process we may signal), never one worker.
    if (pid <= 0) return -EINVAL;
    if (kill(pid, SIGKILL) != 0) return -errno;
    return 0;
}

int imago_close_from(int first) {
    if (first < 0) return -EBADF;
#ifdef __NR_close_range
    if (syscall(__NR_close_range, (unsigned int)first, ~0U, 0U) == 0) return 0;
    // ENOSYS before Linux 5.9; EPERM from a seccomp filter that does not know the call.
    if (errno != ENOSYS && errno != EPERM) return -errno;
#endif
    // Every number up to the open-files limit (the hard one when it is finite and sane, since a soft limit
    // lowered after descriptors were opened would leave the higher ones out).
    struct rlimit limit;
    rlim_t end = 1024;
    if (getrlimit(RLIMIT_NOFILE, &limit) == 0) {
        end = limit.rlim_cur;
        if (limit.rlim_max != RLIM_INFINITY && limit.rlim_max > end) end = limit.rlim_max;
    }
    if (end == RLIM_INFINITY || end > (1U << 20)) end = 1U << 20;
    for (rlim_t fd = (rlim_t)first; fd < end; fd++) close((int)fd);
    return 0;
}

/* ---- messages --------------------------------------------------------------------------- */

// Room for a few descriptors: a peer that sends more than one gets the rest closed rather than MSG_CTRUNC.
#define IMAGO_MAX_FDS 8

ssize_t imago_send(int sock, const void *buf, size_t len, int fd) {
    if (buf == NULL && len > 0) return -EINVAL;
    struct iovec iov = {.iov_base = (void *)buf, .iov_len = len};
    union {
        char bytes[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } control;
    struct msghdr message;
    memset(&message, 0, sizeof message);
    message.msg_iov = &iov;
    message.msg_iovlen = 1;
    if (fd >= 0) {
        memset(&control, 0, sizeof control);
        message.msg_control = control.bytes;
        message.msg_controllen = sizeof control.bytes;
        struct cmsghdr *header = CMSG_FIRSTHDR(&message);
        header->cmsg_level = SOL_SOCKET;
        header->cmsg_type = SCM_RIGHTS;
        header->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(header), &fd, sizeof fd);
    }
    ssize_t sent;
    do {
        sent = sendmsg(sock, &message, MSG_NOSIGNAL);
    } while (sent < 0 && errno == EINTR);
    return sent < 0 ? -errno : sent;
}

static int64_t now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

// Waits until `sock` is readable: 1 when it is, -ETIMEDOUT, or a negative errno.
static int wait_readable(int sock, int timeout_ms, int64_t deadline) {
    for (;;) {
        int wait = -1;
        if (timeout_ms >= 0) {
            int64_t left = deadline - now_ms();
            wait = left <= 0 ? 0 : left > 0x7fffffff ? 0x7fffffff : (int)left;
        }
        struct pollfd entry = {.fd = sock, .events = POLLIN, .revents = 0};
        int ready = poll(&entry, 1, wait);
        if (ready < 0) {
            if (errno == EINTR) continue;
            return -errno;
        }
        if (ready == 0) return -ETIMEDOUT;
        if (entry.revents & POLLNVAL) return -EBADF;
        // POLLIN, POLLHUP or POLLERR: recvmsg tells which (data, 0 for a closed peer, or the error).
        return 1;
    }
}

// Closes every descriptor of the SCM_RIGHTS messages in `message`, keeping the first in *keep when keep
// is not NULL.
static void take_descriptors(struct msghdr *message, int *keep) {
    for (struct cmsghdr *header = CMSG_FIRSTHDR(message); header != NULL; header = CMSG_NXTHDR(message, header)) {
        if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
        size_t count = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        const unsigned char *data = CMSG_DATA(header);
        for (size_t i = 0; i < count; i++) {
            int fd;
            memcpy(&fd, data + i * sizeof(int), sizeof fd);
            if (keep != NULL && *keep < 0) {
                *keep = fd;
            } else {
                close(fd);
            }
        }
    }
}

ssize_t imago_receive(int sock, void *buf, size_t cap, int *fd, int timeout_ms) {
    if (fd != NULL) *fd = -1;
    if (buf == NULL && cap > 0) return -EINVAL;
    int64_t deadline = timeout_ms >= 0 ? now_ms() + timeout_ms : 0;
    for (;;) {
        int ready = wait_readable(sock, timeout_ms, deadline);
        if (ready < 0) return ready;
        struct iovec iov = {.iov_base = buf, .iov_len = cap};
        union {
            char bytes[CMSG_SPACE(sizeof(int) * IMAGO_MAX_FDS)];
            struct cmsghdr align;
        } control;
        memset(&control, 0, sizeof control);
        struct msghdr message;
        memset(&message, 0, sizeof message);
        message.msg_iov = &iov;
        message.msg_iovlen = 1;
        message.msg_control = control.bytes;
        message.msg_controllen = sizeof control.bytes;
        // MSG_DONTWAIT: another reader may have taken the message between poll and here; then poll again.
        ssize_t got = recvmsg(sock, &message, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
        if (got < 0) {
            if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
            return -errno;
        }
        // A truncated message is refused whole; an empty one means the peer closed, whatever it carried.
        // MSG_CTRUNC needs nothing more: the kernel drops (closes) what did not fit, or could not be
        // installed under the open-files limit, and *fd stays -1 when no descriptor came through.
        if ((message.msg_flags & MSG_TRUNC) || got == 0) {
            take_descriptors(&message, NULL);
            return (message.msg_flags & MSG_TRUNC) ? -EMSGSIZE : 0;
        }
        take_descriptors(&message, fd);
        return got;
    }
}

/* ---- shared memory ---------------------------------------------------------------------- */

int imago_worker_keep_heap(size_t keep) {
#if defined(__GLIBC__)
    int limit = keep > (size_t)INT_MAX ? INT_MAX : (int)keep;
    if (mallopt(M_MMAP_THRESHOLD, 32 << 20) != 1 || mallopt(M_TRIM_THRESHOLD, limit) != 1) return -EINVAL;
    return 0;
#else
    (void)keep;
    return -ENOSYS;
#endif
}

int imago_worker_cpu_budget(uint64_t seconds) {
    struct timespec spent;
    struct rlimit limit;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &spent) != 0 || getrlimit(RLIMIT_CPU, &limit) != 0) return -errno;
    // RLIMIT_CPU counts whole seconds of the process's CPU time, every thread's: the budget starts
    // from what was used so far, rounded up.
    uint64_t used = (uint64_t)spent.tv_sec + 1;
    uint64_t soft = seconds > UINT64_MAX - used ? UINT64_MAX : used + seconds;
    if (limit.rlim_max != RLIM_INFINITY && soft > (uint64_t)limit.rlim_max) soft = (uint64_t)limit.rlim_max;
    limit.rlim_cur = (rlim_t)soft;
    return setrlimit(RLIMIT_CPU, &limit) == 0 ? 0 : -errno;
}

int imago_memfd(const char *name) {
    int fd = memfd_create(name != NULL ? name : "imago", MFD_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

int64_t imago_file_size(int fd) {
    struct stat status;
    if (fstat(fd, &status) != 0) return -errno;
    return (int64_t)status.st_size;
}

/* Moves all `len` bytes between `buf` and the file at `offset`, looping over short transfers and
   EINTR: pwrite when `writing`, pread otherwise. */
static int transfer_all(int fd, unsigned char *bytes, size_t len, int64_t offset, int writing) {
    if (offset < 0 || (bytes == NULL && len > 0)) return -EINVAL;
    while (len > 0) {
        ssize_t done = writing ? pwrite(fd, bytes, len, (off_t)offset) : pread(fd, bytes, len, (off_t)offset);
        if (done < 0) {
            if (errno == EINTR) continue;
            return -errno;
        }
        if (done == 0) return -EIO;
        bytes += done;
        len -= (size_t)done;
        offset += done;
    }
    return 0;
}

int imago_write_all(int fd, const void *buf, size_t len, int64_t offset) {
    return transfer_all(fd, (unsigned char *)(uintptr_t)buf, len, offset, 1);
}

int imago_read_all(int fd, void *buf, size_t len, int64_t offset) { return transfer_all(fd, buf, len, offset, 0); }

int imago_read_process(pid_t pid, uint64_t address, void *buf, size_t len) {
    if (buf == NULL && len > 0) return -EINVAL;
    size_t done = 0;
    while (done < len) {
        struct iovec local = {.iov_base = (char *)buf + done, .iov_len = len - done};
        struct iovec remote = {.iov_base = (void *)(uintptr_t)(address + done), .iov_len = len - done};
        ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
        if (n < 0) {
            if (errno == EINTR) continue;
            return -errno;
        }
        if (n == 0) return -EIO;
        done += (size_t)n;
    }
    return 0;
}

#else

// Isolated decoding is Linux's: elsewhere every call fails.
int imago_socketpair(int fds[2]) { return (void)fds, -ENOSYS; }
pid_t imago_spawn(const char *path, char *const argv[], char *const envp[], int child_fd) {
    return (void)path, (void)argv, (void)envp, (void)child_fd, -ENOSYS;
}
int imago_wait(pid_t pid, int block, int *exit_code, int *signal) {
    return (void)pid, (void)block, (void)exit_code, (void)signal, -ENOSYS;
}
int imago_kill(pid_t pid) { return (void)pid, -ENOSYS; }
int imago_close_from(int first) { return (void)first, -ENOSYS; }
ssize_t imago_send(int sock, const void *buf, size_t len, int fd) {
    return (void)sock, (void)buf, (void)len, (void)fd, -ENOSYS;
}
ssize_t imago_receive(int sock, void *buf, size_t cap, int *fd, int timeout_ms) {
    return (void)sock, (void)buf, (void)cap, (void)fd, (void)timeout_ms, -ENOSYS;
}
int imago_worker_keep_heap(size_t keep) { return (void)keep, -ENOSYS; }
int imago_memfd(const char *name) { return (void)name, -ENOSYS; }
int64_t imago_file_size(int fd) { return (void)fd, -ENOSYS; }
int imago_write_all(int fd, const void *buf, size_t len, int64_t offset) {
    return (void)fd, (void)buf, (void)len, (void)offset, -ENOSYS;
}
int imago_read_all(int fd, void *buf, size_t len, int64_t offset) {
    return (void)fd, (void)buf, (void)len, (void)offset, -ENOSYS;
}
int imago_read_process(pid_t pid, uint64_t address, void *buf, size_t len) {
    return (void)pid, (void)address, (void)buf, (void)len, -ENOSYS;
}

#endif
