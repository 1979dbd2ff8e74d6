// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation

/// Pictures that a Debian package ships, for the face tests: scikit-image's sample data
/// (python3-skimage, which `scripts/bootstrap` installs). `astronaut.png` is NASA's portrait of
/// Eileen Collins (512×512, public domain); the others have no human face.
public enum Portraits {
    /// scikit-image's data folder.
    public static let folder = URL(fileURLWithPath: "/usr/lib/python3/dist-packages/skimage/data")

    /// Whether the sample data is installed.
    public static let isAvailable = FileManager.default.fileExists(atPath: folder.appendingPathComponent("astronaut.png").path)

    /// The reason shown when the face tests are skipped.
    public static let missingReason: Comment = "scikit-image's sample data not found at \(folder.path) (apt-get install python3-skimage)"

    /// The bytes of a sample file (`"astronaut.png"`).
    public static func data(_ name: String) throws -> Data { try Data(contentsOf: folder.appendingPathComponent(name)) }

    /// Where the astronaut's face is in `astronaut.png`: the box OpenCV's frontal-face cascade
    /// finds at full size (x 177, y 67, 93×93), which covers her eyes, nose and mouth.
    public static let astronautFace = (x: 177, y: 67, width: 93, height: 93)
}
