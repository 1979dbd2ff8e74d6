// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/*
 * Process glue for the command-line tool: `imago fetch` runs the sibling executable
 * `imago-fetch`, which links the network stack the main tool leaves out.
 */
#include "imago_cli_glue.h"
#include "imago_glue.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int imago_cli_default_language(void) { return imago_svg_default_language(); }

/* The Swift runtime's own setter for CommandLine's arguments (an underscored entry point of
   libswiftCore, exported since Swift 5). */
extern void _swift_stdlib_overrideUnsafeArgvArgc(char **argv, int argc);

/* glibc passes argc, argv and envp to an executable's constructors. The Swift runtime linked in
   statically (the .deb's) otherwise finds the arguments by walking back from `environ` and checks
   the result against /proc/self/maps: in a root without /proc (a bare chroot) CommandLine.arguments
   came out empty, every `imago` command printed the help, and `imago-server settings` served.
   This hands the runtime the arguments themselves; it changes nothing else. */
__attribute__((constructor)) static void imago_cli_arguments(int argc, char **argv, char **envp) {
    (void)envp;
    if (argc > 0 && argv != NULL) _swift_stdlib_overrideUnsafeArgvArgc(argv, argc);
}

int imago_exec_sibling(const char *name, int argc, char **argv, int skip) {
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return errno ? errno : ENOENT;
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    size_t dir = slash ? (size_t)(slash - self + 1) : 0;
    size_t len = strlen(name);
    if (dir + len + 1 > sizeof self) return ENAMETOOLONG;
    char path[PATH_MAX];
    memcpy(path, self, dir);
    memcpy(path + dir, name, len + 1);
    if (skip < 1) skip = 1;
    if (skip > argc) skip = argc;
    char **args = calloc((size_t)(argc - skip + 2), sizeof *args);
    if (!args) return ENOMEM;
    args[0] = path;
    for (int i = skip; i < argc; i++) args[i - skip + 1] = argv[i];
    execv(path, args);
    int err = errno;
    free(args);
    return err;
}

#include <sys/ioctl.h>

int imago_terminal_size(int fd, int *columns, int *rows) {
    struct winsize ws;
    if (ioctl(fd, TIOCGWINSZ, &ws) != 0 || ws.ws_col == 0) return -1;
    *columns = ws.ws_col;
    *rows = ws.ws_row;
    return 0;
}
