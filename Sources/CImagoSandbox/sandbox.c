// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#define _GNU_SOURCE
#include "imago_sandbox.h"
#include "sandbox_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void imago_sandbox_note(char *report, size_t cap, const char *format, ...) {
    if (report == NULL || cap == 0) return;
    size_t used = strnlen(report, cap);
    if (used >= cap - 1) {
        report[cap - 1] = '\0';
        return;
    }
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(report + used, cap - used, format, arguments);
    va_end(arguments);
}

const char *imago_sandbox_errno_name(int error) {
    switch (error) {
    case EPERM: return "EPERM";
    case ENOENT: return "ENOENT";
    case EINTR: return "EINTR";
    case EIO: return "EIO";
    case E2BIG: return "E2BIG";
    case EBADF: return "EBADF";
    case EAGAIN: return "EAGAIN";
    case ENOMEM: return "ENOMEM";
    case EACCES: return "EACCES";
    case EFAULT: return "EFAULT";
    case EBUSY: return "EBUSY";
    case EEXIST: return "EEXIST";
    case EXDEV: return "EXDEV";
    case ENOTDIR: return "ENOTDIR";
    case EINVAL: return "EINVAL";
    case EMFILE: return "EMFILE";
    case ENOSPC: return "ENOSPC";
    case EDOM: return "EDOM";
    case ERANGE: return "ERANGE";
    case ENAMETOOLONG: return "ENAMETOOLONG";
    case ENOSYS: return "ENOSYS";
    case ELOOP: return "ELOOP";
    case EUSERS: return "EUSERS";
    case EOPNOTSUPP: return "EOPNOTSUPP";
    case ECANCELED: return "ECANCELED";
    default: {
        static __thread char unknown[24];
        snprintf(unknown, sizeof unknown, "errno %d", error);
        return unknown;
    }
    }
}

#if defined(__linux__)
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__NR_landlock_create_ruleset) && __has_include(<linux/landlock.h>)
#include <linux/landlock.h>
#define IMAGO_LANDLOCK 1
// Rights of later ABIs than the headers may know (linux-libc-dev 6.1 stops at ABI 2), with the kernel's values.
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)  /* ABI 2 */
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)  /* ABI 3 */
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)  /* ABI 5 */
#endif
#endif

/* ---- rlimits ---------------------------------------------------------------------------- */

// Sets one limit, kept within the current hard limit (raising it would need CAP_SYS_RESOURCE). Returns 0,
// or -1 with a line in the report.
static int limit(int resource, const char *name, uint64_t soft, uint64_t hard, char *report, size_t cap) {
    struct rlimit current, next = {.rlim_cur = (rlim_t)soft, .rlim_max = (rlim_t)hard};
    if (getrlimit(resource, &current) == 0 && current.rlim_max != RLIM_INFINITY) {
        if (next.rlim_max > current.rlim_max) next.rlim_max = current.rlim_max;
        if (next.rlim_cur > next.rlim_max) next.rlim_cur = next.rlim_max;
    }
    if (setrlimit(resource, &next) == 0) return 0;
    imago_sandbox_note(report, cap, "rlimits: %s not set (%s)\n", name, imago_sandbox_errno_name(errno));
    return -1;
}

// The limits that are set (non-zero). Returns 1 when every one of them was applied.
static int limits(const struct imago_sandbox_options *options, char *report, size_t cap) {
    int failed = 0;
    if (options->address_space_bytes != 0) {
        uint64_t bytes = options->address_space_bytes;
        failed |= limit(RLIMIT_AS, "RLIMIT_AS", bytes, bytes, report, cap);
    }
    if (options->file_size_bytes != 0) {
        // A write past it fails with EFBIG after SIGXFSZ, whose default action ends the process.
        uint64_t bytes = options->file_size_bytes;
        failed |= limit(RLIMIT_FSIZE, "RLIMIT_FSIZE", bytes, bytes, report, cap);
    }
    if (options->open_files != 0) {
        uint64_t count = options->open_files;
        failed |= limit(RLIMIT_NOFILE, "RLIMIT_NOFILE", count, count, report, cap);
    }
    return failed == 0;
}

/* ---- Landlock --------------------------------------------------------------------------- */

#ifdef IMAGO_LANDLOCK
static long landlock_version(void) {
    return syscall(__NR_landlock_create_ruleset, NULL, (size_t)0, (uint32_t)LANDLOCK_CREATE_RULESET_VERSION);
}
#endif

int imago_landlock_abi(void) {
#ifdef IMAGO_LANDLOCK
    long abi = landlock_version();
    return abi < 0 ? 0 : (int)abi;
#else
    return 0;
#endif
}

// Read-only access beneath options->read_paths, nothing else. Returns 0 when the process is restricted.
static int landlock(const struct imago_sandbox_options *options, char *report, size_t cap) {
#ifdef IMAGO_LANDLOCK
    long abi = landlock_version();
    if (abi < 0) {
        // ENOSYS: not built into the kernel; EOPNOTSUPP: built in, but not enabled at boot.
        imago_sandbox_note(report, cap, "landlock: not available (%s)\n", imago_sandbox_errno_name(errno));
        return -1;
    }
    // Every right the kernel's ABI knows is handled, so each is denied unless a rule below grants it.
    uint64_t handled = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE |
                       LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |
                       LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
                       LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |
                       LANDLOCK_ACCESS_FS_MAKE_SYM;
    if (abi >= 2) handled |= LANDLOCK_ACCESS_FS_REFER;
    if (abi >= 3) handled |= LANDLOCK_ACCESS_FS_TRUNCATE;
    if (abi >= 5) handled |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
    struct landlock_ruleset_attr attributes;
    memset(&attributes, 0, sizeof attributes);
    attributes.handled_access_fs = handled;
    int ruleset = (int)syscall(__NR_landlock_create_ruleset, &attributes, sizeof attributes, (uint32_t)0);
    if (ruleset < 0) {
        imago_sandbox_note(report, cap, "landlock: no ruleset (%s)\n", imago_sandbox_errno_name(errno));
        return -1;
    }
    for (size_t i = 0; options->read_paths != NULL && i < options->read_path_count; i++) {
        const char *path = options->read_paths[i];
        if (path == NULL) continue;
        int fd = open(path, O_PATH | O_CLOEXEC);
        if (fd < 0) {
            // A path that does not exist is skipped quietly (fonts that are not installed, say).
            if (errno != ENOENT && errno != ENOTDIR) {
                imago_sandbox_note(report, cap, "landlock: %s skipped (%s)\n", path, imago_sandbox_errno_name(errno));
            }
            continue;
        }
        struct stat status;
        struct landlock_path_beneath_attr beneath;
        memset(&beneath, 0, sizeof beneath);
        beneath.parent_fd = fd;
        // READ_DIR on anything but a directory is EINVAL.
        beneath.allowed_access = LANDLOCK_ACCESS_FS_READ_FILE;
        if (fstat(fd, &status) == 0 && S_ISDIR(status.st_mode)) beneath.allowed_access |= LANDLOCK_ACCESS_FS_READ_DIR;
        if (syscall(__NR_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &beneath, (uint32_t)0) != 0) {
            imago_sandbox_note(report, cap, "landlock: %s skipped (%s)\n", path, imago_sandbox_errno_name(errno));
        }
        close(fd);
    }
    if (syscall(__NR_landlock_restrict_self, ruleset, (uint32_t)0) != 0) {
        imago_sandbox_note(report, cap, "landlock: not applied (%s)\n", imago_sandbox_errno_name(errno));
        close(ruleset);
        return -1;
    }
    close(ruleset);
    return 0;
#else
    (void)options;
    imago_sandbox_note(report, cap, "landlock: not available (ENOSYS)\n");
    return -1;
#endif
}

/* ---- the whole ---------------------------------------------------------------------------- */

int imago_sandbox_enter(const struct imago_sandbox_options *options, char *report, size_t report_cap) {
    if (report != NULL && report_cap > 0) report[0] = '\0';
    if (options == NULL) return -EINVAL;
    int applied = 0;

    struct rlimit no_core = {.rlim_cur = 0, .rlim_max = 0};
    if (setrlimit(RLIMIT_CORE, &no_core) != 0) {
        imago_sandbox_note(report, report_cap, "core dumps: RLIMIT_CORE not set (%s)\n",
                           imago_sandbox_errno_name(errno));
    }

    if (prctl(PR_SET_NO_NEW_PRIVS, 1L, 0L, 0L, 0L) != 0) {
        int error = errno;
        imago_sandbox_note(report, report_cap, "no_new_privs: refused (%s)\n", imago_sandbox_errno_name(error));
        return -error;
    }
    applied |= IMAGO_SANDBOX_NO_NEW_PRIVS;

    if (options->address_space_bytes != 0 || options->file_size_bytes != 0 ||
        options->open_files != 0) {
        if (limits(options, report, report_cap)) applied |= IMAGO_SANDBOX_RLIMITS;
    }

    // The filter is built now and loaded last: libseccomp.so.2 must be opened while the file system is
    // still visible, before Landlock.
    struct imago_seccomp *filter = options->seccomp ? imago_seccomp_prepare(report, report_cap) : NULL;

    if (options->namespaces) {
        unsigned uid = (unsigned)getuid(), gid = (unsigned)getgid();
        const int others = CLONE_NEWUSER | CLONE_NEWNET | CLONE_NEWIPC;
        int mount_error = 0;
        if (unshare(others | CLONE_NEWNS) == 0) {
            applied |= IMAGO_SANDBOX_NAMESPACES;
            if (imago_sandbox_filesystem(options, uid, gid, report, report_cap) == 0) applied |= IMAGO_SANDBOX_FILESYSTEM;
        } else if (mount_error = errno, unshare(others) == 0) {
            // A host that allows the others but not a mount namespace (systemd's RestrictNamespaces, say).
            applied |= IMAGO_SANDBOX_NAMESPACES;
            imago_sandbox_note(report, report_cap, "filesystem: no mount namespace (%s)\n", imago_sandbox_errno_name(mount_error));
        } else {
            // EINVAL: more than one thread; EPERM: a container's profile; ENOSPC: user namespaces disabled.
            imago_sandbox_note(report, report_cap, "namespaces: unshare refused (%s)\n",
                               imago_sandbox_errno_name(errno));
        }
    }

    if (options->landlock && landlock(options, report, report_cap) == 0) applied |= IMAGO_SANDBOX_LANDLOCK;

    if (filter != NULL && imago_seccomp_load(filter, report, report_cap) == 0) applied |= IMAGO_SANDBOX_SECCOMP;
    return applied;
}

#else

int imago_sandbox_enter(const struct imago_sandbox_options *options, char *report, size_t report_cap) {
    (void)options;
    if (report != NULL && report_cap > 0) report[0] = '\0';
    imago_sandbox_note(report, report_cap, "sandbox: not available on this system\n");
    return -ENOSYS;
}

int imago_landlock_abi(void) { return 0; }

#endif
