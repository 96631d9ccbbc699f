// `import CoreVideo` on Linux: CyanotypeVideo's pixel buffers under Apple's module name
// (Package.swift builds this target on Linux only).
@_exported import CyanotypeVideo
@_exported import Cyanotype
