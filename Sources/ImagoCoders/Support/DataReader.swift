#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Bounds-checked integer reads from `Data`; every read past the end returns `nil`.
struct DataReader {
    let data: Data
    init(_ data: Data) { self.data = data }
    var count: Int { data.count }

    func u8(_ o: Int) -> UInt8? {
        guard o >= 0, o < data.count else { return nil }
        return data[data.startIndex + o]
    }
    func u16le(_ o: Int) -> Int? {
        guard let a = u8(o), let b = u8(o + 1) else { return nil }
        return Int(a) | Int(b) << 8
    }
    func u16be(_ o: Int) -> Int? {
        guard let a = u8(o), let b = u8(o + 1) else { return nil }
        return Int(a) << 8 | Int(b)
    }
    func u32le(_ o: Int) -> Int? {
        guard let a = u16le(o), let b = u16le(o + 2) else { return nil }
        return a | b << 16
    }
    func u32be(_ o: Int) -> Int? {
        guard let a = u16be(o), let b = u16be(o + 2) else { return nil }
        return a << 16 | b
    }
    func bytes(_ o: Int, _ n: Int) -> Data? {
        guard o >= 0, n >= 0, o <= data.count, n <= data.count - o else { return nil }
        return data.subdata(in: (data.startIndex + o)..<(data.startIndex + o + n))
    }
    func matches(_ s: String, at o: Int) -> Bool {
        let p = Array(s.utf8)
        guard let b = bytes(o, p.count) else { return false }
        return Array(b) == p
    }
}
