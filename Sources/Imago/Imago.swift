// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

// The umbrella module: `import Imago` brings in the whole public API.
@_exported public import ImagoCore
@_exported public import ImagoCoders
@_exported public import ImagoCache
@_exported public import ImagoProcessing
@_exported public import ImagoLoading
@_exported public import ImagoAnimation
