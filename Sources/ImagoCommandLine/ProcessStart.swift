// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CImagoCLIGlue

/// What each Imago executable (`imago`, `imago-fetch`, `imago-server`) does first in `main`.
public enum ProcessStart {
    /// Sets `LANGUAGE=en` when no variable names a language (unset, empty, C or POSIX), so that
    /// SVG's `systemLanguage` matches English under the C locale, as browsers match it; decoder
    /// workers inherit it. Call it first in `main`, while the process has one thread: it changes
    /// the environment. (A C constructor would run before the statically linked Swift runtime
    /// finds the command line by walking back from `environ`, and leave
    /// `CommandLine.arguments` empty.)
    public static func prepare() {
        _ = imago_cli_default_language()
    }
}
