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

/* SVG's `systemLanguage` matches English under the C locale, as browsers match it: sets
 * LANGUAGE=en when no variable names a language (imago_svg_default_language), returning 1 when
 * it did. It changes the environment: each executable calls it first in main, while the process
 * has one thread (ProcessStart.prepare()). Not from a C constructor: the Swift runtime linked in
 * statically (as the .deb links it) finds the arguments by walking back from `environ` in its
 * own constructor, which runs after the executable's; a setenv before it moves `environ` to the
 * heap, and CommandLine.arguments comes out empty. */
int imago_cli_default_language(void);

/* The terminal's size in character cells for descriptor `fd`; -1 when it is not a terminal. */
int imago_terminal_size(int fd, int *columns, int *rows);

#ifdef __cplusplus
}
#endif

#endif
