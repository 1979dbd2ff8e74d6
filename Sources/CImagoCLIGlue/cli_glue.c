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
