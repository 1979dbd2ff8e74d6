// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#define _GNU_SOURCE
#include "imago_sandbox.h"
#include "sandbox_internal.h"

#if defined(__linux__)
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ---- a file system of the readable paths alone ------------------------------------------ */

// How a worker's file system is made, in its own mount namespace (the user namespace gives it the
// right): a small tmpfs becomes the root, each readable path is bound onto the same path in it, read
// only, and the host's root is detached. What is not among the readable paths does not exist for the
// worker (ENOENT, not EACCES), with or without Landlock.

enum { IMAGO_VIEW_PATHS = 64 };

// Where the new root is put together: a directory every Linux system has, hidden by the tmpfs only in
// the worker's namespace.
static const char *const imago_view_base = "/tmp";

// Creates `target`'s missing parent directories (mode 0755) and `target` itself: a directory, or an
// empty file to bind a file onto. Returns 0 or -errno.
static int make_target(char *target, int directory) {
    for (char *slash = strchr(target + 1, '/'); slash != NULL; slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        int made = mkdir(target, 0755);
        *slash = '/';
        if (made != 0 && errno != EEXIST) return -errno;
    }
    if (directory) return mkdir(target, 0755) == 0 || errno == EEXIST ? 0 : -errno;
    int fd = open(target, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return -errno;
    close(fd);
    return 0;
}

// Whether `path` lies beneath (or is) one of the first `count` paths of `bound`: it is visible already,
// and making its target would write into the host's directory bound there.
static int beneath_bound(const char *path, const char *const *bound, size_t count) {
    for (size_t i = 0; i < count; i++) {
        size_t length = strlen(bound[i]);
        if (strncmp(path, bound[i], length) == 0 && (path[length] == '\0' || path[length] == '/')) return 1;
    }
    return 0;
}

// Makes the bind mount at `target` read only, keeping the flags the kernel locks in a user namespace
// (nosuid, nodev, noexec, atime). A failure leaves it writable, which the seccomp filter and Landlock
// still refuse, so it is not reported.
static void read_only(const char *target) {
    struct statvfs status;
    unsigned long flags = MS_REMOUNT | MS_BIND | MS_RDONLY;
    if (statvfs(target, &status) == 0) {
        if (status.f_flag & ST_NOSUID) flags |= MS_NOSUID;
        if (status.f_flag & ST_NODEV) flags |= MS_NODEV;
        if (status.f_flag & ST_NOEXEC) flags |= MS_NOEXEC;
        if (status.f_flag & ST_NOATIME) flags |= MS_NOATIME;
        if (status.f_flag & ST_NODIRATIME) flags |= MS_NODIRATIME;
        if (status.f_flag & ST_RELATIME) flags |= MS_RELATIME;
    }
    (void)mount(NULL, target, NULL, flags, NULL);
}

// Binds the readable path open as `fd` (a directory when `directory`) onto the same path beneath the
// new root. Returns 0 or -errno, with the step's name in `*step`.
static int bind_path(const char *path, int fd, int directory, const char **step) {
    char target[PATH_MAX], source[64];
    if (snprintf(target, sizeof target, "%s%s", imago_view_base, path) >= (int)sizeof target) {
        *step = "a path";
        return -ENAMETOOLONG;
    }
    int made = make_target(target, directory);
    if (made != 0) {
        *step = "a mount point";
        return made;
    }
    snprintf(source, sizeof source, "/proc/self/fd/%d", fd);
    if (mount(source, target, NULL, MS_BIND | MS_REC, NULL) != 0) {
        *step = "a bind mount";
        return -errno;
    }
    read_only(target);
    return 0;
}

// The readable paths that exist, opened (O_PATH) while the host's file system is still in view, shortest
// first, so that a path beneath another is seen to be covered by it. Returns how many were opened.
static size_t open_paths(const struct imago_sandbox_options *options, const char **paths, int *fds, int *directories) {
    size_t count = 0;
    for (size_t i = 0; options->read_paths != NULL && i < options->read_path_count && count < IMAGO_VIEW_PATHS; i++) {
        const char *path = options->read_paths[i];
        if (path == NULL || path[0] != '/' || path[1] == '\0') continue;
        int fd = open(path, O_PATH | O_CLOEXEC);
        if (fd < 0) continue;
        struct stat status;
        size_t at = count++;
        while (at > 0 && strlen(paths[at - 1]) > strlen(path)) {
            paths[at] = paths[at - 1];
            fds[at] = fds[at - 1];
            directories[at] = directories[at - 1];
            at--;
        }
        paths[at] = path;
        fds[at] = fd;
        directories[at] = fstat(fd, &status) == 0 && S_ISDIR(status.st_mode);
    }
    return count;
}

// The host's top-level links into /usr (a merged /usr: /lib -> usr/lib), made again in the new root so
// that a library found by its old path still is.
static void link_merged_usr(void) {
    static const char *const names[] = {"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char link[PATH_MAX], target[PATH_MAX];
        ssize_t length = readlink(names[i], target, sizeof target - 1);
        if (length <= 0) continue;
        target[length] = '\0';
        snprintf(link, sizeof link, "%s%s", imago_view_base, names[i]);
        (void)symlink(target, link);
    }
}

// Maps the worker's user and group onto themselves in its new user namespace (unmapped, it could not
// create the new root's mount points: EOVERFLOW). Returns 0 or -errno.
static int map_ids(unsigned uid, unsigned gid) {
    char line[64];
    const char *files[] = {"/proc/self/setgroups", "/proc/self/uid_map", "/proc/self/gid_map"};
    for (int i = 0; i < 3; i++) {
        if (i == 0) snprintf(line, sizeof line, "deny");
        else snprintf(line, sizeof line, "%u %u 1\n", i == 1 ? uid : gid, i == 1 ? uid : gid);
        int fd = open(files[i], O_WRONLY | O_CLOEXEC);
        if (fd < 0) return -errno;
        ssize_t written = write(fd, line, strlen(line));
        int error = errno;
        close(fd);
        if (written != (ssize_t)strlen(line)) return written < 0 ? -error : -EIO;
    }
    return 0;
}

// Gives up the capabilities the new user namespace gave (over its own mounts and network): the file
// system is made, and nothing after needs them. Returns 0 or -errno.
static int drop_capabilities(void) {
    struct __user_cap_header_struct header = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
    struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
    memset(data, 0, sizeof data);
    return syscall(SYS_capset, &header, data) == 0 ? 0 : -errno;
}

// Makes the tmpfs at the base the root and detaches the host's. Returns 0 or -errno, with the step.
static int pivot(const char **step) {
    *step = "pivot_root";
    if (chdir(imago_view_base) != 0 || syscall(SYS_pivot_root, ".", ".") != 0) return -errno;
    *step = "detaching the host's root";
    if (umount2(".", MNT_DETACH) != 0 || chdir("/") != 0) return -errno;
    (void)mount(NULL, "/", NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
    return 0;
}

// The tmpfs root with each readable path bound onto it (paths beneath one already bound are visible
// through it). Returns 0 or -errno, with the step in `*step`.
static int new_root(const char *const *paths, const int *fds, const int *directories, size_t count, const char **step) {
    *step = "making the mounts private";
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) return -errno;
    *step = "a tmpfs root";
    if (mount("imago", imago_view_base, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0755,size=256k") != 0) return -errno;
    for (size_t i = 0; i < count; i++) {
        if (beneath_bound(paths[i], paths, i)) continue;
        int bound = bind_path(paths[i], fds[i], directories[i], step);
        if (bound != 0) return bound;
    }
    return 0;
}

int imago_sandbox_filesystem(const struct imago_sandbox_options *options, unsigned uid, unsigned gid, char *report, size_t cap) {
    const char *paths[IMAGO_VIEW_PATHS];
    int fds[IMAGO_VIEW_PATHS], directories[IMAGO_VIEW_PATHS];
    size_t count = open_paths(options, paths, fds, directories);
    const char *step = "mapping its user";
    int result = map_ids(uid, gid);
    if (result == 0) result = new_root(paths, fds, directories, count, &step);
    for (size_t i = 0; i < count; i++) close(fds[i]);
    if (result == 0) {
        link_merged_usr();
        result = pivot(&step);
    }
    if (result == 0) {
        step = "dropping its capabilities";
        result = drop_capabilities();
    }
    if (result != 0) imago_sandbox_note(report, cap, "filesystem: %s failed (%s)\n", step, imago_sandbox_errno_name(-result));
    return result;
}

#endif
