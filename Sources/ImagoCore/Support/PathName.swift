// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// File-name helpers with `NSString`'s path semantics, for keys and URLs, without Foundation's
/// `NSString` (Imago builds on FoundationEssentials).
package enum PathName {
    /// Splits `path` into everything before the last component's extension and the extension
    /// (without the dot). `"a/b.png"` gives `("a/b", "png")`; `"a.b/c"`, `".hidden"` and
    /// `"name."` have no extension (`(path, "")`), as `NSString.pathExtension` says.
    package static func splitExtension(_ path: String) -> (stem: String, ext: String) {
        let component = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        guard let dot = path[component...].lastIndex(of: "."), dot != component,
            path.index(after: dot) != path.endIndex
        else { return (path, "") }
        return (String(path[..<dot]), String(path[path.index(after: dot)...]))
    }

    /// The extension of `path`'s last component, or `""`.
    package static func pathExtension(_ path: String) -> String { splitExtension(path).ext }

    /// `path` without its last component's extension.
    package static func deletingPathExtension(_ path: String) -> String { splitExtension(path).stem }

    /// Lower-case hexadecimal digits of `bytes`, two per byte.
    package static func hex<S: Sequence>(_ bytes: S) -> String where S.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension PathName {
    /// `text` without leading and trailing spaces, tabs and line breaks.
    package static func trimmed<S: StringProtocol>(_ text: S) -> String {
        // "\r\n" is one Character (a grapheme cluster), equal to neither "\r" nor "\n".
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        guard let first = text.firstIndex(where: { !isSpace($0) }), let last = text.lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(text[first...last])
    }

    /// `text` percent-encoded for a URL path: unreserved characters, sub-delimiters, `:`, `@`
    /// and `/` stay as they are (Foundation's `urlPathAllowed`), every other UTF-8 byte becomes `%XX`.
    package static func percentEncodedPath(_ text: String) -> String {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/".utf8)
        return PercentEscapes.escaped(text) { allowed.contains($0) }
    }
}

extension PathName {
    /// The display scale a file name, path, key or URL carries in its last component, written
    /// `@2x` or `@3x` just before the extension (`icon@2x.png`, `https://x.test/a@3x.jpg?v=2`):
    /// 3, 2, or 1 without a suffix. Imago's one rule for it, used by ``Image`` loading by name,
    /// the caches and the pipeline.
    package static func displayScale(of name: String) -> Int {
        var path = Substring(name)
        // For a URL, the query and fragment are not part of the name.
        if name.contains("://"), let cut = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<cut] }
        if let slash = path.lastIndex(of: "/") { path = path[path.index(after: slash)...] }
        let stem = deletingPathExtension(String(path))
        if stem.hasSuffix("@3x") { return 3 }
        if stem.hasSuffix("@2x") { return 2 }
        return 1
    }
}
