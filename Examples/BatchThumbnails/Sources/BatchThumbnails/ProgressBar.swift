// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation

/// A one-line progress bar on standard error: done/total, a bar, the rate and the time left.
/// On a terminal it redraws in place; otherwise it prints a line at every tenth.
final class ProgressBar {
    private let total: Int
    private let start = Date()
    private let interactive = isatty(2) == 1
    private var done = 0
    private var failed = 0
    private var lastTenth = -1

    init(total: Int) {
        self.total = total
        draw()
    }

    func advance(failed didFail: Bool) {
        done += 1
        if didFail { failed += 1 }
        draw()
    }

    func finish() {
        if interactive { FileHandle.standardError.write(Data("\n".utf8)) }
    }

    private func draw() {
        let fraction = total == 0 ? 1 : Double(done) / Double(total)
        let elapsed = Date().timeIntervalSince(start)
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        let left = rate > 0 ? Double(total - done) / rate : 0
        let width = 30
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        let failures = failed > 0 ? ", \(failed) failed" : ""
        let line = "\(bar) \(done)/\(total)  \(String(format: "%.1f", rate)) img/s  \(String(format: "%.0f", left)) s left\(failures)"
        if interactive {
            FileHandle.standardError.write(Data("\r\u{1B}[K\(line)".utf8))
        } else {
            let tenth = Int(fraction * 10)
            guard tenth != lastTenth else { return }
            lastTenth = tenth
            FileHandle.standardError.write(Data("\(line)\n".utf8))
        }
    }
}
