// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

package import ImagoCore

extension OutputSettings {
    /// `IMAGO_QUALITY_MAPPING`: what a quality number that names no format (`IMAGO_QUALITY`, the
    /// URL's `quality`) means for each output format.
    public enum QualityMapping: String, Sendable, CaseIterable {
        /// imgproxy's: the number goes to every encoder as it is, so WebP and AVIF at one number
        /// look different from JPEG at it (WebP at 80 scores about as JPEG at 70 does).
        case none
        /// The number is JPEG's visual quality: WebP and AVIF get the quality at which they score
        /// as JPEG does at that number with SSIMULACRA2, from the tables `scripts/bench-formats
        /// --mapping` publishes (WebP at method 4, AVIF at speed 6, adjusted for other speeds);
        /// other formats get the number. With this mapping the environment starts
        /// ``OutputSettings/formatQuality`` empty, so `IMAGO_FORMAT_QUALITY` entries alone
        /// override it.
        case visual

        /// The quality to give `format`'s encoder for the format-less `quality`, AVIF encoded at
        /// libavif's `avifSpeed`; between 1 and 100.
        package func quality(_ quality: Int, for format: ImageFormat, avifSpeed: Int) -> Int {
            guard self == .visual else { return quality }
            let q = Double(min(100, max(1, quality)))
            let mapped: Double
            switch format {
            case .webp: mapped = Self.interpolate(q, Self.webp)
            case .avif: mapped = Self.interpolate(q, Self.avif) + Double(Self.avifSpeedOffset(avifSpeed))
            default: return quality
            }
            return Int(min(100, max(1, mapped.rounded())))
        }

        /// The JPEG quality that scores as `quality` does in `format`'s encoder (AVIF at libavif's
        /// `avifSpeed`): the inverse of the visual mapping, between 1 and 100; `nil` for a format
        /// with no table (JPEG is its own).
        package static func jpegQuality(scoringAs quality: Int, in format: ImageFormat, avifSpeed: Int) -> Int? {
            let q: Double
            switch format {
            case .jpeg: return min(100, max(1, quality))
            case .webp: q = interpolate(Double(quality), webp.map { (jpeg: $0.other, other: $0.jpeg) })
            case .avif: q = interpolate(Double(quality - avifSpeedOffset(avifSpeed)), avif.map { (jpeg: $0.other, other: $0.jpeg) })
            default: return nil
            }
            return Int(min(100, max(1, q.rounded())))
        }

        /// The quality at which a JPEG with N. Robidoux's tables scores as one with the
        /// standard's does at `quality` (`scripts/bench-formats --efficient`, 2026-11-29: medians
        /// over 16 held-out photos at 1024 px), between 1 and 100.
        package static func robidouxQuality(_ quality: Int) -> Int {
            Int(min(100, max(1, interpolate(Double(quality), robidoux).rounded())))
        }

        /// Standard-table JPEG quality to Robidoux-table quality at equal SSIMULACRA2.
        static let robidoux: [(jpeg: Double, other: Double)] = [
            (50, 54.6), (60, 63.5), (70, 73.0), (80, 81.0), (90, 90.2)
        ]

        /// Quality points AVIF at `speed` needs beyond speed 6 for the same score (from the equal
        /// score table in docs/benchmarks.md: speeds 5, 7, 8 and 9 need -1, +2, +3 and +4).
        package static func avifSpeedOffset(_ speed: Int) -> Int {
            switch speed {
            case ...5: return -1
            case 6: return 0
            case 7: return 2
            case 8: return 3
            default: return 4
            }
        }

        /// JPEG quality to WebP (method 4) quality at equal SSIMULACRA2 (`scripts/bench-formats
        /// --mapping`, 2026-11-26: medians over 4 of the traffic trace's photos at 1024 px).
        static let webp: [(jpeg: Double, other: Double)] = [
            (50, 67.6), (60, 75.9), (70, 81.4), (80, 87.2), (90, 93.8), (95, 97.7)
        ]
        /// JPEG quality to AVIF (speed 6) quality at equal SSIMULACRA2 (the same run).
        static let avif: [(jpeg: Double, other: Double)] = [
            (50, 52.8), (60, 56.5), (70, 62.2), (80, 73.2), (90, 88.2), (95, 92.4)
        ]

        /// Piecewise-linear through `table` (ascending), proportional below its first point and
        /// on towards (100, 100) past its last.
        static func interpolate(_ q: Double, _ table: [(jpeg: Double, other: Double)]) -> Double {
            guard let first = table.first, let last = table.last else { return q }
            if q <= first.jpeg { return q * first.other / first.jpeg }
            for (a, b) in zip(table, table.dropFirst()) where q <= b.jpeg {
                return a.other + (q - a.jpeg) / (b.jpeg - a.jpeg) * (b.other - a.other)
            }
            guard last.jpeg < 100 else { return last.other }
            return last.other + (q - last.jpeg) / (100 - last.jpeg) * (100 - last.other)
        }
    }
}
