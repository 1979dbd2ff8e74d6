// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoServiceURL
import ImagoTestSupport
import Testing

@testable import ImagoServer
@testable import ImagoServerCLI

/// The README's service contract held to the code: the option list, the status table, the
/// imgproxy setting names, and the settings article.
@Suite("The README's option list, status table and imgproxy mapping match the code")
struct ReadmeContractTests {
    static let root = TestFiles.projectRoot

    /// The rows of the first table after the heading `### title`, as cells.
    static func table(after title: String, in file: String = "README.md") throws -> [[String]] {
        let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
        let start = try #require(text.range(of: "\n### \(title)\n"), "no section \(title)")
        var rows: [[String]] = []
        var inTable = false
        for line in text[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("|") {
                inTable = true
                let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                    .map { $0.trimmingCharacters(in: .whitespaces) }
                if cells.allSatisfy({ $0.allSatisfy { $0 == "-" } }) { continue }
                rows.append(cells)
            } else if inTable {
                break
            }
        }
        return Array(rows.dropFirst())  // the header row
    }

    /// The names in backticks in `cell`.
    static func names(_ cell: String) -> [String] {
        cell.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    @Test("every option the parser reads is in the README's table, and every name there is read")
    func options() throws {
        let rows = try Self.table(after: "Options")
        // The first cell: `name` (`short`, `other`), possibly several options.
        let listed = Set(rows.flatMap { Self.names($0[0]) })
        #expect(listed.count > 60)
        for name in listed {
            #expect(ProcessingOptions.optionNames.contains(name), "\(name) is in the README but not read")
        }
        // Imago's own extra spellings of min-width and min-height are left out of the table.
        for name in ProcessingOptions.optionNames where !["min_width", "min_height"].contains(name) {
            #expect(listed.contains(name), "\(name) is read but not in the README")
            // And the parser really knows it (it may refuse the argument, not the name).
            do {
                _ = try ProcessingOptions(parsing: ["\(name):1"], allowSecurityOptions: true)
            } catch let error {
                if case .unknownOption = error { Issue.record("\(name): unknown to the parser") }
            }
        }
    }

    @Test("every error code has the README's status, and the README lists every code the service answers with")
    func statuses() throws {
        let rows = try Self.table(after: "Statuses and headers")
        var listed: [String: [String]] = [:]
        for row in rows {
            for code in Self.names(row[2]) { listed[code, default: []].append(row[1]) }
        }
        for (code, status) in ServiceError.statuses {
            let cells = try #require(listed[code], "\(code) is not in the README's status table")
            #expect(cells.contains { $0.contains(String(status)) }, "\(code): \(status) against \(cells)")
        }
        #expect(Set(listed.keys) == Set(ServiceError.statuses.keys))
        // Each code one status, decided in one place: no error outside ServiceError.swift names
        // a status of its own.
        let sources = Self.root.appendingPathComponent("Sources/ImagoServer")
        let files = try FileManager.default.subpathsOfDirectory(atPath: sources.path).filter { $0.hasSuffix(".swift") }
        for file in files where !file.hasSuffix("Errors/ServiceError.swift") {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            #expect(!text.contains("ServiceError(status:") && !text.contains("code: \""), "\(file) states an error's status or code itself")
        }
        #expect(ServiceError.Code.allCases.count == ServiceError.statuses.count)
        #expect(ServiceError(.sourceError, "x").status.code == 502 && ServiceError(.queueFull, "x").status.code == 429)
    }

    @Test("the README's imgproxy table is the code's mapping, and every setting is in the settings article")
    func settings() throws {
        let rows = try Self.table(after: "Configuration")
        var pairs: [String: String] = [:]
        for row in rows {
            for i in stride(from: 0, to: row.count - 1, by: 2) {
                guard let from = Self.names(row[i]).first, let to = Self.names(row[i + 1]).first else { continue }
                pairs[from] = to
            }
        }
        var equivalents = ServerConfiguration.imgproxyEquivalents
        for setting in ProcessSettings.settings { for alias in setting.imgproxyNames { equivalents[alias] = setting.name } }
        let missing = equivalents.filter { pairs[$0.key] != $0.value }.keys.sorted()
        let extra = pairs.filter { equivalents[$0.key] != $0.value }.keys.sorted()
        #expect(missing.isEmpty && extra.isEmpty, "not in the README's table: \(missing); not the code's: \(extra)")
        // The article's table is the descriptors' own: `imago-server settings --markdown`.
        let article = try String(
            contentsOf: Self.root.appendingPathComponent("Sources/Imago/Imago.docc/RunningTheService.md"), encoding: .utf8)
        let table = SettingsTable.markdown(SettingsCommand.rows)
        #expect(article.contains(table + "\n"), "Running the Service's settings table differs from the descriptors': run `imago-server settings --markdown`")
    }
}
