// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#ifndef IMAGO_CLI_GLUE_H
#define IMAGO_CLI_GLUE_H

/* Process and terminal glue for the command-line tools only: nothing in the library uses it. */

#ifdef __cplusplus
extern "C" {
#endif

/* Replaces the process with the executable `name` in the running executable's directory,
 * with argv[skip...] as its arguments (argv[0] becomes its path). Returns only on failure,
 * with the errno value (ENOENT when it is not there). */
int imago_exec_sibling(const char *name, int argc, char **argv, int skip);

/* The terminal's size in character cells for descriptor `fd`; -1 when it is not a terminal. */
int imago_terminal_size(int fd, int *columns, int *rows);

#ifdef __cplusplus
}
#endif

#endif
