// `import CoreMedia` on Linux: CyanotypeVideo's CMTime, CMTimeRange and friends under Apple's
// module name (Package.swift builds this target on Linux only).
@_exported import CyanotypeVideo
@_exported import Foundation
