// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

extension ServerConfiguration {
    /// What the render plans are decided with: the output settings, the source limits, what the
    /// render draws with, and the request's time for a vector render.
    var renderSettings: RenderPlan.Settings {
        RenderPlan.Settings(output: output, security: security, drawing: drawing, renderTime: http.requestTimeout)
    }

    /// What the loading pipeline is made from.
    var pipelineSettings: ServicePipeline.Settings {
        ServicePipeline.Settings(
            security: security, sources: sources, cache: cache, workers: workers, isolation: isolation, requestTimeout: http.requestTimeout)
    }
}
