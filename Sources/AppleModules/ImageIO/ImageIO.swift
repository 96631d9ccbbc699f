// `import ImageIO` on Linux: Cyanotype under Apple's module name (Package.swift builds this
// target on Linux only). It brings CGImageSource, CGImageDestination, the `kCGImage...` keys and
// the Core Graphics names they use (CGImage, CGColorSpace); being a re-export of the whole
// library, it also makes Core Image's names visible, which Apple's ImageIO does not.
@_exported import Cyanotype
@_exported import Foundation
