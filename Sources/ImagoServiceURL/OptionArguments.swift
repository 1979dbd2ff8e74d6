// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore

/// One option's arguments, read by position as imgproxy reads them (its `options/parser`):
/// a value that must be there is an error when empty, a boolean is Go's `strconv.ParseBool`
/// (anything else is false), colours are 3 or 6 hex digits.
struct OptionArguments {
    let option: String
    /// Never empty: an option without arguments has one empty argument.
    let values: [String]

    func fail(_ reason: String) -> ServiceURLError { .invalidArgument(option: option, reason: reason) }

    /// More than `n` arguments is an error.
    func atMost(_ n: Int) throws(ServiceURLError) {
        guard values.count <= n else { throw fail("takes at most \(n) argument\(n == 1 ? "" : "s"), not \(values.count)") }
    }

    /// An option of one value: more is an error.
    func single<T>(_ read: @autoclosure () throws(ServiceURLError) -> T) throws(ServiceURLError) -> T {
        try atMost(1)
        return try read()
    }

    func text(_ i: Int) throws(ServiceURLError) -> String {
        guard i < values.count, !values[i].isEmpty else { throw fail("argument \(i + 1) is missing") }
        return values[i]
    }

    /// Go's `strconv.ParseBool`: `1 t T TRUE true True` are true, and everything else is false
    /// (imgproxy logs the others and carries on).
    func bool(_ i: Int) -> Bool {
        i < values.count && ["1", "t", "T", "TRUE", "true", "True"].contains(values[i])
    }

    func integer(_ i: Int) throws(ServiceURLError) -> Int {
        let v = try text(i)
        guard let n = Int(v) else { throw fail("'\(v)' is not an integer") }
        return n
    }

    /// A non-negative integer.
    func count(_ i: Int) throws(ServiceURLError) -> Int {
        let n = try integer(i)
        guard n >= 0 else { throw fail("\(n) is negative") }
        return n
    }

    /// A width or height: 0 through 100 000 pixels (imgproxy sets no upper bound; Imago refuses
    /// sizes no image could have before any work).
    func size(_ i: Int) throws(ServiceURLError) -> Int {
        let n = try count(i)
        guard n <= 100_000 else { throw fail("\(n) pixels is more than 100000") }
        return n
    }

    func number(_ i: Int) throws(ServiceURLError) -> Double {
        let v = try text(i)
        guard let d = Double(v), d.isFinite else { throw fail("'\(v)' is not a number") }
        return d
    }

    func nonNegative(_ i: Int) throws(ServiceURLError) -> Double {
        let d = try number(i)
        guard d >= 0 else { throw fail("\(d) is negative") }
        return d
    }

    func positive(_ i: Int) throws(ServiceURLError) -> Double {
        let d = try number(i)
        guard d > 0 else { throw fail("\(d) is not above 0") }
        return d
    }

    func quality(_ i: Int) throws(ServiceURLError) -> Int {
        let q = try count(i)
        guard q <= 100 else { throw fail("quality \(q) is over 100") }
        return q
    }

    /// A colour channel: 0-255 in decimal, no sign.
    func channel(_ i: Int) throws(ServiceURLError) -> UInt8 {
        let v = try text(i)
        guard v.allSatisfy(\.isASCII), v.allSatisfy(\.isNumber), let n = UInt8(v) else { throw fail("a colour channel is 0-255") }
        return n
    }

    /// `RRGGBB` or `RGB` in hex.
    func hexColor(_ i: Int) throws(ServiceURLError) -> RGBA8 {
        let v = try text(i)
        var hex = v
        if hex.count == 3 { hex = hex.map { "\($0)\($0)" }.joined() }
        guard hex.count == 6, hex.allSatisfy(\.isHexDigit), let n = UInt32(hex, radix: 16) else {
            throw fail("'\(v)' is not a hex colour (RGB or RRGGBB)")
        }
        return RGBA8(r: UInt8(n >> 16 & 0xFF), g: UInt8(n >> 8 & 0xFF), b: UInt8(n & 0xFF))
    }

    func resizingType(_ i: Int) throws(ServiceURLError) -> ProcessingOptions.ResizingType {
        let v = i < values.count ? values[i] : ""
        guard let t = ProcessingOptions.ResizingType(rawValue: v) else {
            throw fail("'\(v)' is not a resizing type (fit, fill, fill-down, force, auto)")
        }
        return t
    }

    func format(_ i: Int) throws(ServiceURLError) -> ImageFormat {
        let v = try text(i)
        guard let f = ImageFormat(serviceExtension: v) else { throw fail("'\(v)' is not an image format") }
        return f
    }

    /// A gravity from argument `start` on: its kind, then offsets (a focus point's x and y, both
    /// required). Smart takes no offsets and clears them; an empty offset keeps `current`'s.
    /// `obj` takes class names, `objw` names and weights (both Pro's); `smart: false` (extend's
    /// gravities) refuses `sm`, `obj` and `objw`.
    func gravity(from start: Int, current: ProcessingOptions.Gravity, smart: Bool) throws(ServiceURLError) -> ProcessingOptions.Gravity {
        let v = start < values.count ? values[start] : ""
        let n = values.count - start
        if smart, v == "obj" || v == "objw" { return try objectGravity(from: start + 1, weighted: v == "objw") }
        guard let kind = ProcessingOptions.Gravity.Kind(rawValue: v), kind != .objects, kind != .smart || smart else {
            throw fail("'\(v)' is not a gravity (no, so, ea, we, noea, nowe, soea, sowe, ce\(smart ? ", sm, obj, objw" : ""), fp)")
        }
        switch kind {
        case .smart:
            guard n == 1 else { throw fail("smart gravity takes no offsets") }
            return .init(.smart, x: 0, y: 0)
        case .focusPoint:
            guard n == 3 else { throw fail("a focus point takes x and y") }
        default:
            guard n <= 3 else { throw fail("a gravity takes at most two offsets") }
        }
        var x = current.x, y = current.y
        if n > 1, !values[start + 1].isEmpty { x = try number(start + 1) }
        if n > 2, !values[start + 2].isEmpty { y = try number(start + 2) }
        if kind == .focusPoint, !(0...1).contains(x) || !(0...1).contains(y) { throw fail("a focus point is between 0 and 1") }
        return .init(kind, x: x, y: y)
    }

    /// `obj:class1:class2…` (weight 1 each; none: every object) or `objw:class1:w1:class2:w2…`
    /// from argument `start` on. Class names are letters, digits, `_` and `-`, at most 16 of them.
    func objectGravity(from start: Int, weighted: Bool) throws(ServiceURLError) -> ProcessingOptions.Gravity {
        let names = Array(values.dropFirst(start))
        guard names.count <= (weighted ? 32 : 16) else { throw fail("at most 16 object classes") }
        var weights: [String: Double] = [:]
        var i = 0
        while i < names.count {
            let name = names[i]
            guard !name.isEmpty, name.count <= 64, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") })
            else { throw fail("'\(name)' is not an object class") }
            if weighted {
                guard i + 1 < names.count else { throw fail("objw takes a weight after each class") }
                let w = try number(start + i + 1)
                guard w.isFinite, w >= 0, w <= 1000 else { throw fail("an object weight is between 0 and 1000") }
                weights[name] = w
                i += 2
            } else {
                weights[name] = 1
                i += 1
            }
        }
        if weighted, weights.isEmpty { throw fail("objw takes a class and a weight") }
        return .init(.objects, x: 0, y: 0, objectWeights: weights)
    }
}
