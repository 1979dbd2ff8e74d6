// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

// `imago-fuzz`: libFuzzer over one of Imago's fuzz targets, the one `IMAGO_FUZZ_TARGET` names.
// Built by scripts/fuzz only (`IMAGO_FUZZ=1` adds this target to the package), with libFuzzer
// and address sanitising; it has no `main` of its own: libFuzzer's calls the two functions below.

import Foundation
import ImagoFuzzTargets

#if canImport(Glibc)
import Glibc
#endif

/// The target `IMAGO_FUZZ_TARGET` names, looked up once; `nil` when it names none.
let selectedTarget: (name: String, run: @Sendable (Data) -> Void)? = {
    let name = ProcessInfo.processInfo.environment["IMAGO_FUZZ_TARGET"] ?? ""
    return FuzzTargets.all.first { $0.name == name }
}()

/// Called by libFuzzer once, before the first input: stops the run with status 2, listing the
/// targets, when `IMAGO_FUZZ_TARGET` names none of them.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(_ argc: UnsafeMutableRawPointer?, _ argv: UnsafeMutableRawPointer?) -> CInt {
    guard let target = selectedTarget else {
        let names = FuzzTargets.all.map(\.name).joined(separator: " ")
        FileHandle.standardError.write(Data("imago-fuzz: set IMAGO_FUZZ_TARGET to one of: \(names)\n".utf8))
        exit(2)
    }
    FileHandle.standardError.write(Data("imago-fuzz: target \(target.name)\n".utf8))
    return 0
}

/// Called by libFuzzer for every input: runs the selected target over its bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    selectedTarget?.run(data)
    return 0
}
