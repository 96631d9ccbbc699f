// swift-tools-version:6.0
import PackageDescription
import Foundation

// Tuned builds are opt-in: SwiftPM refuses `unsafeFlags` in versioned dependencies, so the
// library carries none unless CYANOTYPE_TUNED=1 asks for AVX2/FMA/F16C codegen (x86-64-v3).
let tuned = ProcessInfo.processInfo.environment["CYANOTYPE_TUNED"] == "1"
let tunedSwift: [SwiftSetting] = tuned ? [.unsafeFlags(["-Xcc", "-march=x86-64-v3"])] : []
// The libFuzzer harness has no `main` (libFuzzer supplies it), so it exists only when
// CYANOTYPE_FUZZ=1 asks for it; see Fuzz/README.md.
let fuzz = ProcessInfo.processInfo.environment["CYANOTYPE_FUZZ"] == "1"

let package = Package(
    name: "Cyanotype",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "Cyanotype", targets: ["Cyanotype"]),
        .library(name: "Instafilter", targets: ["Instafilter"]),
        .library(name: "CyanotypeVideo", targets: ["CyanotypeVideo"]),
        .executable(name: "cyanotype", targets: ["CyanotypeCLI"]),
        .executable(name: "cyanotype-bench", targets: ["CyanotypeBench"]),
    ],
    targets: [
        // Debian's codec libraries, called straight from Swift (none of these longjmp).
        .systemLibrary(name: "CSPNG", pkgConfig: "spng", providers: [.apt(["libspng-dev"])]),
        .systemLibrary(name: "CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
        .systemLibrary(name: "CWebP", pkgConfig: "libwebp", providers: [.apt(["libwebp-dev"])]),
        .systemLibrary(name: "CLCMS2", pkgConfig: "lcms2", providers: [.apt(["liblcms2-dev"])]),
        .systemLibrary(name: "CTIFF", pkgConfig: "libtiff-4", providers: [.apt(["libtiff-dev"])]),
        // libheif, libjxl, FFmpeg, libmicrohttpd, libcrypto and libzbar (with the hundred-odd libraries
        // they pull in) are opened on first use, not at start-up: their module maps link
        // nothing, and CDeferredLibraries defines the functions Cyanotype calls in them
        // (scripts/generate-deferred-symbols.py lists them).
        .target(name: "CDeferredLibraries", linkerSettings: [.linkedLibrary("dl")]),
        .systemLibrary(name: "CHeif", providers: [.apt(["libheif-dev"])]),
        // zbar (QR codes for CIDetector), deferred too: it pulls in D-Bus, X11 and V4L.
        .systemLibrary(name: "CZbar", providers: [.apt(["libzbar-dev"])]),
        // No pkgConfig: libjxl.pc pulls in -DHWY_SHARED_DEFINE, which SwiftPM warns about; the
        // headers are in /usr/include.
        .systemLibrary(name: "CJXL", providers: [.apt(["libjxl-dev"])]),
        // The text stack: fontconfig (fonts by name and coverage), FriBidi, HarfBuzz, FreeType.
        .systemLibrary(
            name: "CText", pkgConfig: "harfbuzz freetype2 fontconfig fribidi",
            providers: [.apt(["libharfbuzz-dev", "libfreetype-dev", "libfontconfig-dev", "libfribidi-dev"])]),
        // Animated GIF (giflib; CWebP also links libwebp's demuxer and muxer: animations and
        // the EXIF/XMP/ICCP chunks).
        .systemLibrary(name: "CGif", pkgConfig: "libgif", providers: [.apt(["libgif-dev"])]),
        // PNG image data: libdeflate compresses bands of rows; zlib joins them into one stream.
        .systemLibrary(name: "CDeflate", pkgConfig: "libdeflate zlib", providers: [.apt(["libdeflate-dev", "zlib1g-dev"])]),
        // The render server: libmicrohttpd (HTTP) and OpenSSL's libcrypto (HMAC-SHA256 URL
        // signatures, constant-time comparison).
        .systemLibrary(name: "CMicroHTTPD", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CCrypto", providers: [.apt(["libssl-dev"])]),
        // LibRaw (RAW camera files), opened on first use like the libraries above; CLibRawShim
        // is its only caller, through a small C API (LibRaw's structs stay in C).
        .systemLibrary(name: "CLibRaw", providers: [.apt(["libraw-dev"])]),
        .target(name: "CLibRawShim", dependencies: ["CLibRaw", "CDeferredLibraries"]),
        // libtiff behind non-variadic C calls that return error codes (TIFFSetField/TIFFGetField
        // are variadic, which Swift cannot call).
        // ... and libjpeg's scanline encoder (its errors longjmp, which must stay in C).
        .target(name: "CCodecShims", dependencies: ["CTIFF"], linkerSettings: [.linkedLibrary("jpeg")]),
        // Pixel loops in C with the vector width picked at run time (AVX-512 or AVX2 where
        // the CPU has them, SSE2 otherwise), so an untuned build runs them at full speed:
        // 8-bit reads and writes, colour stages, the blur's passes, the looks' row loops.
        .target(name: "CCyanotypeKernels"),
        // Row loops of planar Y'CbCr reads and writes (CIPlanarImageBuffer), for video frames.
        .target(name: "CCyanotypeYCbCr"),
        // The value types of the file API (formats, decode limits, encode choices, file errors),
        // declared once: the codecs use them and Cyanotype re-exports them (and only them).
        .target(name: "CyanotypeFileTypes"),
        // Byte-level decoders and encoders: files in, interleaved 8/16-bit pixels out, and back;
        // EXIF reading and every lcms2 call (ICC profiles) live here. Cyanotype imports it
        // internally: users of `import Cyanotype` do not see it, and the tools, the server and
        // video reach files through Cyanotype (only the bench and the tests import it).
        .target(
            name: "CyanotypeCodecs",
            dependencies: [
                "CSPNG", "CTurboJPEG", "CWebP", "CLCMS2", "CCodecShims", "CHeif", "CGif", "CJXL", "CDeflate",
                "CDeferredLibraries", "CyanotypeFileTypes",
            ],
            swiftSettings: tunedSwift),
        // Core Image's API, the tiled renderer, kernels and the built-in filters.
        .target(
            name: "Cyanotype",
            dependencies: [
                "CyanotypeFileTypes", "CyanotypeCodecs", "CDeferredLibraries", "CCyanotypeKernels", "CCyanotypeYCbCr", "CText", "CZbar",
                "CLibRawShim", "CCodecShims",
            ],
            swiftSettings: tunedSwift),
        // Debian's FFmpeg libraries in process (demux, decode, encode, mux), and the few C
        // helpers Swift needs around them (macro constants, frame planes, the cancel hook).
        .systemLibrary(
            name: "CFFmpeg",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswscale-dev"])]),
        .target(name: "CFFmpegShim", dependencies: ["CFFmpeg", "CDeferredLibraries"]),
        // Video in and out with AVFoundation's names, every frame through Cyanotype's public API.
        .target(
            name: "CyanotypeVideo",
            dependencies: ["Cyanotype", "CFFmpeg", "CFFmpegShim", "CDeferredLibraries"],
            swiftSettings: tunedSwift),
        // Named looks, filter chains with intensity, film grain and an exporter, built only on
        // Cyanotype's public API (their row loops in CCyanotypeKernels, vector width picked at
        // run time).
        .target(
            name: "Instafilter",
            dependencies: ["Cyanotype", "CCyanotypeKernels"],
            swiftSettings: tunedSwift),
        // The command line's vocabulary, shared by the CLI and the server: options and their
        // parser, filter specs, LUT and preset names, the pipeline's order, the output writer,
        // messages. Symbols are `package`: no public API.
        .target(
            name: "CyanotypeTool",
            dependencies: ["Cyanotype", "Instafilter"],
            swiftSettings: tunedSwift),
        // `cyanotype serve`: the render API and the Fun House page (static files in Page/).
        .target(
            name: "CyanotypeServe",
            dependencies: [
                "CyanotypeTool", "Cyanotype", "Instafilter", "CMicroHTTPD", "CCrypto", "CDeferredLibraries",
            ],
            resources: [.copy("Page")],
            swiftSettings: tunedSwift),
        .executableTarget(
            name: "CyanotypeCLI",
            dependencies: ["Cyanotype", "Instafilter", "CyanotypeTool", "CyanotypeServe", "CyanotypeVideo"],
            swiftSettings: tunedSwift),
        .executableTarget(
            name: "CyanotypeBench",
            dependencies: ["Cyanotype", "Instafilter", "CyanotypeVideo"],
            swiftSettings: tunedSwift),
        // The tests make HEIF files with libheif's own API (linked directly: the product opens it
        // on first use).
        // What several test targets share (a wait with a deadline).
        .target(name: "CyanotypeTestSupport", path: "Tests/Support"),
        .testTarget(name: "CyanotypeCodecsTests", dependencies: ["CyanotypeCodecs"], linkerSettings: [.linkedLibrary("heif")]),
        .testTarget(name: "CyanotypeTests", dependencies: ["Cyanotype", "CyanotypeCodecs", "CyanotypeTestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "InstafilterTests", dependencies: ["Instafilter", "CCyanotypeKernels"]),
        .testTarget(name: "CyanotypeVideoTests", dependencies: ["CyanotypeVideo", "Cyanotype"]),
        // End-to-end tests of the command-line tool: they run the built `cyanotype` binary.
        .testTarget(name: "CyanotypeCLITests", dependencies: ["CyanotypeCLI", "CyanotypeTool", "Cyanotype", "CyanotypeCodecs", "CyanotypeTestSupport"]),
        // The server over HTTP (it runs the built `cyanotype serve`), and the page in headless Chromium.
        .testTarget(name: "CyanotypeServeTests", dependencies: ["CyanotypeServe", "CyanotypeTool", "CyanotypeCLI", "Cyanotype", "CyanotypeCodecs", "CyanotypeTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)

// Apple's module names, on Linux only (on Apple platforms the system frameworks must never be
// shadowed): `import CoreImage`, `import CoreImage.CIFilterBuiltins`, `import ImageIO`,
// `import AVFoundation`, `import CoreMedia`, `import CoreVideo` and
// `import UniformTypeIdentifiers` compile unchanged and
// `#if canImport(CoreImage)` is true. Each Swift target re-exports Cyanotype (and
// CyanotypeVideo); the C target's module map gives `CoreImage` its `CIFilterBuiltins`
// submodule (SwiftPM cannot mix Swift and C in one target).
#if os(Linux)
package.products += [
    .library(name: "CoreImage", targets: ["CoreImage"]),
    .library(name: "ImageIO", targets: ["ImageIO"]),
    .library(name: "AVFoundation", targets: ["AVFoundation"]),
    .library(name: "CoreMedia", targets: ["CoreMedia"]),
    .library(name: "CoreVideo", targets: ["CoreVideo"]),
    .library(name: "UniformTypeIdentifiers", targets: ["UniformTypeIdentifiers"]),
]
package.targets += [
    .target(name: "CoreImageSubmodules", path: "Sources/AppleModules/CoreImageSubmodules"),
    // swift-testing's cross-import overlay for CoreImage: a file importing both Testing and
    // CoreImage needs a module of this name (Apple's adds test attachments of images).
    .target(name: "_Testing_CoreImage", path: "Sources/AppleModules/TestingCoreImage"),
    .target(
        name: "CoreImage", dependencies: ["Cyanotype", "CoreImageSubmodules", "_Testing_CoreImage"],
        path: "Sources/AppleModules/CoreImage"),
    .target(name: "ImageIO", dependencies: ["Cyanotype"], path: "Sources/AppleModules/ImageIO"),
    .target(name: "UniformTypeIdentifiers", path: "Sources/AppleModules/UniformTypeIdentifiers"),
    .target(name: "CoreMedia", dependencies: ["CyanotypeVideo", "Cyanotype"], path: "Sources/AppleModules/CoreMedia"),
    .target(name: "CoreVideo", dependencies: ["CyanotypeVideo", "Cyanotype"], path: "Sources/AppleModules/CoreVideo"),
    .target(
        name: "AVFoundation", dependencies: ["CyanotypeVideo", "Cyanotype", "CoreImage", "CoreMedia", "CoreVideo"],
        path: "Sources/AppleModules/AVFoundation"),
    // Core Image code as it is written for Apple's platforms, imports unchanged.
    .testTarget(name: "PortingTests", dependencies: ["CoreImage", "ImageIO", "AVFoundation", "CoreMedia", "CoreVideo", "UniformTypeIdentifiers", "Cyanotype"]),
]
// Every module lands in one folder, so `#if canImport(CoreImage)` in the other test targets
// would depend on build order: they depend on the Apple-named modules outright, and their
// Apple-spelled files compile against them here.
for target in package.targets where target.name == "CyanotypeTests" || target.name == "CyanotypeVideoTests" {
    target.dependencies += ["CoreImage", "ImageIO", "AVFoundation"]
}
#endif

if fuzz {
    package.products.append(.executable(name: "FuzzDecoders", targets: ["FuzzDecoders"]))
    package.targets.append(.executableTarget(name: "FuzzDecoders", dependencies: ["CyanotypeCodecs"], path: "Fuzz/FuzzDecoders"))
}
