// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

@_exported public import ImagoAnimation
@_exported public import ImagoCache
@_exported public import ImagoCoders
// The umbrella module: `import Imago` brings in the whole public API.
@_exported public import ImagoCore
@_exported public import ImagoLoading
@_exported public import ImagoProcessing
