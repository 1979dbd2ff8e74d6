// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#define _GNU_SOURCE
#include "sandbox_internal.h"

#if defined(__linux__)
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

/* The few parts of libseccomp's API used here, declared by hand: the library is opened at run time
   (libseccomp2 is a runtime package; its header, in libseccomp-dev, need not be installed). The values
   are those of libseccomp 2.5's include/seccomp.h.in (v2.5.4, the same since 2.4):
     enum scmp_filter_attr: SCMP_FLTATR_ACT_BADARCH = 2;
     enum scmp_compare: SCMP_CMP_NE = 1, SCMP_CMP_LT = 2, SCMP_CMP_LE = 3, SCMP_CMP_EQ = 4, SCMP_CMP_GE = 5,
       SCMP_CMP_GT = 6, SCMP_CMP_MASKED_EQ = 7 ((arg & datum_a) == datum_b);
     struct scmp_arg_cmp { unsigned int arg; enum scmp_compare op; scmp_datum_t datum_a, datum_b; },
       scmp_datum_t being uint64_t;
     SCMP_ACT_KILL_PROCESS 0x80000000U, SCMP_ACT_ERRNO(x) (0x00050000U | ((x) & 0x0000ffffU)),
     SCMP_ACT_ALLOW 0x7fff0000U;
     __NR_SCMP_ERROR -1 (seccomp_syscall_resolve_name's answer for a name it does not know; other
       negative numbers are pseudo-syscalls, which seccomp_rule_add rewrites or refuses per architecture);
     scmp_filter_ctx seccomp_init(uint32_t def_action);
     int seccomp_rule_add(scmp_filter_ctx ctx, uint32_t action, int syscall, unsigned int arg_cnt, ...);
     int seccomp_attr_set(scmp_filter_ctx ctx, enum scmp_filter_attr attr, uint32_t value);
     int seccomp_load(const scmp_filter_ctx ctx); void seccomp_release(scmp_filter_ctx ctx);
     int seccomp_syscall_resolve_name(const char *name). */
typedef void *scmp_filter_ctx;

enum scmp_filter_attr { SCMP_FLTATR_ACT_BADARCH = 2 };

enum scmp_compare {
    SCMP_CMP_NE = 1,
    SCMP_CMP_LT = 2,
    SCMP_CMP_LE = 3,
    SCMP_CMP_EQ = 4,
    SCMP_CMP_GE = 5,
    SCMP_CMP_GT = 6,
    SCMP_CMP_MASKED_EQ = 7
};

struct scmp_arg_cmp {
    unsigned int arg;
    enum scmp_compare op;
    uint64_t datum_a;
    uint64_t datum_b;
};

#define SCMP_ACT_KILL_PROCESS 0x80000000U
#define SCMP_ACT_ERRNO(x) (0x00050000U | ((x) & 0x0000ffffU))
#define SCMP_ACT_ALLOW 0x7fff0000U
#define IMAGO_NR_SCMP_ERROR (-1)

struct imago_seccomp {
    void *library;
    scmp_filter_ctx context;
    int (*rule_add)(scmp_filter_ctx, uint32_t, int, unsigned int, ...);
    int (*load)(scmp_filter_ctx);
    void (*release)(scmp_filter_ctx);
    int (*resolve)(const char *);
    int failures;            // rules libseccomp refused (each leaves its call at the default, EPERM)
    const char *first_name;  // the first of them
    int first_error;
};

// Killed outright: a decoder has no business with any of these, so a call is taken as an exploit at work.
static const char *const killed[] = {
    "socket", "socketpair", "connect", "bind", "listen", "accept", "accept4", "execve", "execveat", "fork", "vfork",
    "ptrace", "process_vm_readv", "process_vm_writev", "setns", "unshare", "mount", "umount2", "pivot_root", "chroot",
    "bpf", "perf_event_open", "keyctl", "add_key", "request_key", "userfaultfd", "io_uring_setup", "init_module",
    "finit_module", "kexec_load", "reboot", "personality"};

// Allowed whatever their arguments. Names the architecture lacks (open, poll, access on arm64) are skipped.
static const char *const allowed[] = {
    // Memory.
    "brk", "mmap", "munmap", "mremap", "mprotect", "madvise",
    // Reading (open and openat are below, by their flags); statfs and fstatfs for fontconfig, fadvise64 for
    // readers that announce their pattern, close_range for imago_close_from.
    "read", "readv", "pread64", "lseek", "fstat", "newfstatat", "statx", "getdents64", "readlink", "readlinkat",
    "access", "faccessat", "faccessat2", "close", "close_range", "dup", "dup3", "fcntl", "statfs", "fstatfs",
    "fadvise64",
    // Writing to descriptors it holds.
    "write", "writev", "pwrite64", "ftruncate", "fallocate", "memfd_create",
    // Its socket (sendto is below, by its address).
    "sendmsg", "recvmsg", "recvfrom", "poll", "ppoll", "pselect6",
    // Threads (clone is below, by its flags).
    "futex", "futex_waitv", "set_robust_list", "get_robust_list", "rseq", "set_tid_address", "sched_yield",
    "sched_getaffinity", "sched_getparam", "sched_getscheduler", "membarrier",
    // Time.
    "clock_gettime", "clock_getres", "clock_nanosleep", "nanosleep", "gettimeofday", "time",
    // Signals and identity.
    "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "sigaltstack", "restart_syscall", "getpid", "gettid",
    "getppid", "getuid", "geteuid", "getgid", "getegid",
    // The rest.
    "getrandom", "uname", "sysinfo", "getcwd", "umask", "getrlimit", "eventfd2", "pipe2", "exit", "exit_group"};

static struct scmp_arg_cmp compare(unsigned int arg, enum scmp_compare op, uint64_t a, uint64_t b) {
    struct scmp_arg_cmp result = {.arg = arg, .op = op, .datum_a = a, .datum_b = b};
    return result;
}

// One rule, with at most two comparisons (all of which must hold). A name libseccomp does not know is
// skipped; a refused rule is counted (it leaves the call at the default action, so the filter only
// gets stricter).
static void rule2(struct imago_seccomp *filter, uint32_t action, const char *name, const struct scmp_arg_cmp *test,
                  const struct scmp_arg_cmp *also) {
    int number = filter->resolve(name);
    if (number == IMAGO_NR_SCMP_ERROR) return;
    int rc = also != NULL   ? filter->rule_add(filter->context, action, number, 2U, *test, *also)
             : test != NULL ? filter->rule_add(filter->context, action, number, 1U, *test)
                            : filter->rule_add(filter->context, action, number, 0U);
    // A pseudo-syscall (negative) the architecture cannot express is absent from it: nothing to filter.
    if (rc >= 0 || number < 0) return;
    if (filter->failures++ == 0) {
        filter->first_name = name;
        filter->first_error = -rc;
    }
}

static void rule(struct imago_seccomp *filter, uint32_t action, const char *name, const struct scmp_arg_cmp *test) {
    rule2(filter, action, name, test, NULL);
}

// open and openat (flags in argument `arg`): reading is allowed, asking to write, create or truncate is EACCES.
static void opening(struct imago_seccomp *filter, const char *name, unsigned int arg) {
    static const uint64_t writing[] = {O_WRONLY, O_RDWR, O_CREAT, O_TRUNC};
    uint64_t mask = O_WRONLY | O_RDWR | O_CREAT | O_TRUNC;
    struct scmp_arg_cmp reading = compare(arg, SCMP_CMP_MASKED_EQ, mask, 0);
    rule(filter, SCMP_ACT_ALLOW, name, &reading);
    for (size_t i = 0; i < sizeof writing / sizeof writing[0]; i++) {
        struct scmp_arg_cmp bit = compare(arg, SCMP_CMP_MASKED_EQ, writing[i], writing[i]);
        rule(filter, SCMP_ACT_ERRNO(EACCES), name, &bit);
    }
}

static void build(struct imago_seccomp *filter) {
    for (size_t i = 0; i < sizeof killed / sizeof killed[0]; i++) rule(filter, SCMP_ACT_KILL_PROCESS, killed[i], NULL);
    for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; i++) rule(filter, SCMP_ACT_ALLOW, allowed[i], NULL);

    opening(filter, "open", 1);
    opening(filter, "openat", 2);

    // Threads, not processes: clone must carry CLONE_THREAD. clone3 passes its flags in memory, which a
    // filter cannot read, so it answers ENOSYS and glibc falls back to clone.
    struct scmp_arg_cmp thread = compare(0, SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD);
    struct scmp_arg_cmp process = compare(0, SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0);
    rule(filter, SCMP_ACT_ALLOW, "clone", &thread);
    rule(filter, SCMP_ACT_KILL_PROCESS, "clone", &process);
    rule(filter, SCMP_ACT_ERRNO(ENOSYS), "clone3", NULL);

    // sendto on the connected socket only (no destination address).
    struct scmp_arg_cmp unaddressed = compare(4, SCMP_CMP_EQ, 0, 0);
    struct scmp_arg_cmp addressed = compare(4, SCMP_CMP_NE, 0, 0);
    rule(filter, SCMP_ACT_ALLOW, "sendto", &unaddressed);
    rule(filter, SCMP_ACT_KILL_PROCESS, "sendto", &addressed);

    // Thread names; every other prctl is EPERM.
    struct scmp_arg_cmp set_name = compare(0, SCMP_CMP_EQ, PR_SET_NAME, 0);
    struct scmp_arg_cmp get_name = compare(0, SCMP_CMP_EQ, PR_GET_NAME, 0);
    rule(filter, SCMP_ACT_ALLOW, "prctl", &set_name);
    rule(filter, SCMP_ACT_ALLOW, "prctl", &get_name);

    // Reading limits; setting only its own CPU-time limit, which the worker moves before each request
    // (imago_worker_cpu_budget; the hard limit it cannot raise). Never another process's.
    struct scmp_arg_cmp no_new_limit = compare(2, SCMP_CMP_EQ, 0, 0);
    rule(filter, SCMP_ACT_ALLOW, "prlimit64", &no_new_limit);
    struct scmp_arg_cmp itself = compare(0, SCMP_CMP_EQ, 0, 0);
    struct scmp_arg_cmp cpu_time = compare(1, SCMP_CMP_EQ, RLIMIT_CPU, 0);
    rule2(filter, SCMP_ACT_ALLOW, "prlimit64", &itself, &cpu_time);

    // Signals to itself only (abort raises SIGABRT with tgkill(getpid(), gettid(), ...)): its uid may be the
    // server's, whose threads it could otherwise kill. tkill names a thread alone, so only the main thread.
    struct scmp_arg_cmp self = compare(0, SCMP_CMP_EQ, (uint64_t)getpid(), 0);
    rule(filter, SCMP_ACT_ALLOW, "tgkill", &self);
    rule(filter, SCMP_ACT_ALLOW, "tkill", &self);
}

struct imago_seccomp *imago_seccomp_prepare(char *report, size_t cap) {
    void *library = dlopen("libseccomp.so.2", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        imago_sandbox_note(report, cap, "seccomp: libseccomp.so.2 not found\n");
        return NULL;
    }
    struct imago_seccomp *filter = calloc(1, sizeof *filter);
    if (filter == NULL) {
        dlclose(library);
        imago_sandbox_note(report, cap, "seccomp: out of memory\n");
        return NULL;
    }
    filter->library = library;
    scmp_filter_ctx (*init)(uint32_t) = (scmp_filter_ctx (*)(uint32_t))dlsym(library, "seccomp_init");
    int (*attr_set)(scmp_filter_ctx, enum scmp_filter_attr, uint32_t) =
        (int (*)(scmp_filter_ctx, enum scmp_filter_attr, uint32_t))dlsym(library, "seccomp_attr_set");
    filter->rule_add = (int (*)(scmp_filter_ctx, uint32_t, int, unsigned int, ...))dlsym(library, "seccomp_rule_add");
    filter->load = (int (*)(scmp_filter_ctx))dlsym(library, "seccomp_load");
    filter->release = (void (*)(scmp_filter_ctx))dlsym(library, "seccomp_release");
    filter->resolve = (int (*)(const char *))dlsym(library, "seccomp_syscall_resolve_name");
    if (init == NULL || filter->rule_add == NULL || filter->load == NULL || filter->release == NULL ||
        filter->resolve == NULL) {
        imago_sandbox_note(report, cap, "seccomp: libseccomp.so.2 lacks a function\n");
        dlclose(library);
        free(filter);
        return NULL;
    }
    filter->context = init(SCMP_ACT_ERRNO(EPERM));
    if (filter->context == NULL) {
        imago_sandbox_note(report, cap, "seccomp: seccomp_init failed\n");
        dlclose(library);
        free(filter);
        return NULL;
    }
    // A call made with another architecture's numbers (int 0x80 on x86-64) kills the whole process too,
    // not only the thread (libseccomp's default).
    if (attr_set != NULL) attr_set(filter->context, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
    build(filter);
    return filter;
}

int imago_seccomp_load(struct imago_seccomp *filter, char *report, size_t cap) {
    if (filter->failures > 0) {
        imago_sandbox_note(report, cap, "seccomp: %d rule(s) refused, %s first (%s)\n", filter->failures,
                           filter->first_name, imago_sandbox_errno_name(filter->first_error));
    }
    int rc = filter->load(filter->context);
    if (rc < 0) imago_sandbox_note(report, cap, "seccomp: not loaded (%s)\n", imago_sandbox_errno_name(-rc));
    filter->release(filter->context);
    dlclose(filter->library);
    free(filter);
    return rc < 0 ? -1 : 0;
}

#endif
