// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

extension RenderPlan {
    /// What a render plan is decided with: the output settings, the source limits, what the
    /// render draws with, and how long a vector render may take (the request's time, at most
    /// 20 seconds). The service makes one at start from its configuration.
    struct Settings: Sendable {
        var output = OutputSettings()
        var security = SecuritySettings()
        var drawing = DrawingSettings()
        var renderTime: Duration = .seconds(10)
    }
}
