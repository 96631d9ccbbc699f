// `import AVFoundation` on Linux: CyanotypeVideo (assets, readers, writers, video compositions,
// export sessions) under Apple's module name (Package.swift builds this target on Linux only).
// As on Apple's platforms, it also brings CoreImage, CoreMedia and CoreVideo.
@_exported import CyanotypeVideo
@_exported import CoreImage
@_exported import CoreMedia
@_exported import CoreVideo
