// `import CoreImage` on Linux: Cyanotype under Apple's module name (Package.swift builds this
// target on Linux only). Like Apple's CoreImage, it also brings the Core Graphics and Foundation
// names used with it (CGRect, CGImage, CGColorSpace, CGColor, CGContext), which Cyanotype declares.
@_exported import Cyanotype
@_exported import Foundation
