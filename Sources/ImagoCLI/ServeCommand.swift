// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ArgumentParser

/// `imago serve` and `imago sign` hand over to the `imago-server` executable beside this one,
/// which links Hummingbird and the network stack that `imago` leaves out.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the image service (imgproxy-compatible URLs).",
        discussion: "Runs the imago-server executable beside imago; `imago serve --help` shows its settings."
    )

    @Argument(parsing: .captureForPassthrough, help: "Options, passed on to imago-server.")
    var arguments: [String] = []

    func run() throws {
        handOver(to: "imago-server")
    }
}

struct SignCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign",
        abstract: "Sign a service URL path with a key and salt.",
        discussion: "Runs `imago-server sign`; `imago sign --help` shows its options."
    )

    @Argument(parsing: .captureForPassthrough, help: "--key HEX --salt HEX PATH, passed on to imago-server.")
    var arguments: [String] = []

    func run() throws {
        handOver(to: "imago-server")
    }
}
