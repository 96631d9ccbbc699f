import Foundation

/// How the samples of a planar Y'CbCr image (or a planar G, B, R one) encode colour: the part
/// of a Core Video pixel buffer's format and attachments (`kCVImageBufferYCbCrMatrixKey`,
/// `kCVImageBufferColorPrimariesKey`, `kCVImageBufferTransferFunctionKey`,
/// `kCVImageBufferChromaLocationTopFieldKey`, video or full range) that reading and writing
/// the pixels needs. Cyanotype's stand-in for `CIImage(cvPixelBuffer:)` on video frames.
///
/// Colour: standard-dynamic-range R'G'B' (`.sdr`: BT.709, BT.601 or unspecified transfer) is
/// read as sRGB-encoded values, the way browsers and `ffmpeg`'s RGB output show video, so codes
/// pass unchanged to an sRGB destination and LUTs made for Rec.709 footage apply to the codes
/// (as in `ffmpeg -vf lut3d`). PQ and HLG are decoded to linear light with BT.2408's reference
/// white (203 cd/m2) at 1.0, so highlights are values above 1 in the working space.
public struct CIYCbCrFormat: Sendable, Hashable, CustomStringConvertible {
    /// The matrix from R'G'B' to Y'CbCr.
    public enum Matrix: String, Sendable, Hashable, CaseIterable {
        /// ITU-R BT.601 (SD video, JPEG).
        case itu601
        /// ITU-R BT.709 (HD video).
        case itu709
        /// ITU-R BT.2020 non-constant luminance (UHD video).
        case itu2020
        /// No matrix: the planes hold G, B and R (in that order, as H.264's and FFmpeg's "GBR").
        case identity
    }
    /// Whether codes span the whole sample range or the video ("studio") range.
    public enum Range: String, Sendable, Hashable {
        /// 16...235 for luma, 16...240 for chroma at 8 bits (scaled by 2^(bits-8) above).
        case video
        /// 0...2^bits-1.
        case full
    }
    /// How the chroma planes are subsampled.
    public enum Subsampling: String, Sendable, Hashable, CaseIterable {
        /// Half width, half height.
        case yuv420
        /// Half width, full height.
        case yuv422
        /// Full resolution.
        case yuv444
    }
    /// Where a subsampled chroma sample sits relative to the luma samples it covers.
    public enum ChromaLocation: String, Sendable, Hashable, CaseIterable {
        /// Co-sited with the left luma sample, vertically between rows (MPEG-2, H.264, HEVC default).
        case left
        /// Centred between the luma samples (MPEG-1, JPEG).
        case center
        /// Co-sited with the top-left luma sample (BT.2020 4:2:0 in some streams).
        case topLeft
        /// Horizontally centred, on the top row.
        case top
        /// Co-sited with the bottom-left luma sample.
        case bottomLeft
        /// Horizontally centred, on the bottom row.
        case bottom
    }
    /// How R'G'B' values relate to light.
    public enum TransferFunction: String, Sendable, Hashable, CaseIterable {
        /// Standard dynamic range (BT.709, BT.601, sRGB or unspecified): read as sRGB-encoded values.
        case sdr
        /// SMPTE ST 2084 (PQ), absolute: 203 cd/m2 becomes 1.0.
        case pq
        /// ARIB STD-B67 (HLG), with the BT.2100 display OOTF at 1000 cd/m2; 203 cd/m2 becomes 1.0.
        case hlg
    }
    /// The R'G'B' primaries.
    public enum Primaries: String, Sendable, Hashable, CaseIterable {
        /// BT.709, the same as sRGB's.
        case itu709
        /// BT.2020 / BT.2100 wide gamut.
        case itu2020
    }

    /// How the chroma planes are subsampled.
    public var subsampling: Subsampling
    /// Significant bits per sample, 8...16. Above 8 each sample is a little-endian `UInt16`
    /// holding the value in its low bits (FFmpeg's `yuv420p10le` and kin).
    public var bitDepth: Int
    /// The matrix from R'G'B' to the planes' values.
    public var matrix: Matrix
    /// Video or full range codes.
    public var range: Range
    /// Where subsampled chroma samples sit.
    public var chromaLocation: ChromaLocation
    /// How R'G'B' values relate to light.
    public var transferFunction: TransferFunction
    /// The R'G'B' primaries.
    public var primaries: Primaries

    /// A format; the defaults describe 8-bit BT.709 4:2:0 video-range H.264 output.
    public init(
        subsampling: Subsampling = .yuv420, bitDepth: Int = 8, matrix: Matrix = .itu709, range: Range = .video,
        chromaLocation: ChromaLocation = .left, transferFunction: TransferFunction = .sdr, primaries: Primaries = .itu709
    ) {
        self.subsampling = subsampling; self.bitDepth = bitDepth; self.matrix = matrix; self.range = range
        self.chromaLocation = chromaLocation; self.transferFunction = transferFunction; self.primaries = primaries
    }

    /// Log2 of the horizontal and vertical chroma subsampling.
    public var chromaShift: (x: Int, y: Int) {
        switch subsampling {
        case .yuv420: return (1, 1)
        case .yuv422: return (1, 0)
        case .yuv444: return (0, 0)
        }
    }
    /// Bytes per sample: 1 up to 8 bits, 2 above.
    public var bytesPerSample: Int { bitDepth > 8 ? 2 : 1 }

    /// The format in words, e.g. "yuv420 8-bit itu709 video range, chroma left, sdr itu709".
    public var description: String {
        "\(subsampling.rawValue) \(bitDepth)-bit \(matrix.rawValue) \(range.rawValue) range, chroma \(chromaLocation.rawValue), "
            + "\(transferFunction.rawValue) \(primaries.rawValue)"
    }
}

/// Why a planar buffer could not be made or rendered to.
public enum CIPlanarBufferError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Width or height is zero, negative or above the renderer's pixel limit.
    case invalidSize(width: Int, height: Int)
    /// The bit depth is outside 8...16.
    case unsupportedBitDepth(Int)
    /// Three planes are needed (Y, Cb, Cr or G, B, R).
    case wrongPlaneCount(Int)
    /// A plane's rows are shorter than its samples.
    case planeTooSmall(plane: Int, bytesPerRow: Int, needed: Int)
    /// Rendering into this format is not supported (PQ and HLG destinations).
    case unsupportedDestination(String)

    /// The reason in words.
    public var description: String {
        switch self {
        case let .invalidSize(w, h): return "planar buffer size \(w)x\(h) is empty or too large"
        case let .unsupportedBitDepth(b): return "planar buffers hold 8 to 16 bits per sample, not \(b)"
        case let .wrongPlaneCount(n): return "a planar buffer has 3 planes (Y, Cb, Cr or G, B, R), not \(n)"
        case let .planeTooSmall(p, bpr, needed): return "plane \(p) has \(bpr) bytes per row, fewer than the \(needed) its samples need"
        case let .unsupportedDestination(why): return "cannot render into this planar format: \(why)"
        }
    }
}

/// A planar Y'CbCr (or G, B, R) bitmap: three planes of 8- or 16-bit samples, rows top first.
/// What Core Image reads and renders as a bi-/tri-planar `CVPixelBuffer`: video frames go
/// into the renderer without an RGB copy (`CIImage(planarBuffer:)` converts tile rows as they
/// are read) and come out the same way (`CIContext.render(_:to:bounds:)` converts tile rows
/// as they are written, averaging chroma over each 2x2 or 2x1 block).
///
/// The memory is the caller's or the buffer's own; images made from the buffer keep it alive.
/// Writing into the planes while an image reading them renders gives undefined pixels.
public final class CIPlanarImageBuffer: @unchecked Sendable {
    /// One plane: its first row and the distance between rows, in bytes.
    public struct Plane: @unchecked Sendable {
        /// The first (top) row.
        public let baseAddress: UnsafeMutableRawPointer
        /// Bytes from one row to the next.
        public let bytesPerRow: Int
        /// Samples per row in this plane (the chroma planes' are subsampled).
        public let width: Int
        /// Rows in this plane (the chroma planes' are subsampled).
        public let height: Int
    }
    /// Width of the image (the luma plane) in pixels.
    public let width: Int
    /// Height of the image (the luma plane) in pixels.
    public let height: Int
    /// How the samples encode colour.
    public let format: CIYCbCrFormat
    /// Y, Cb, Cr (or G, B, R for the identity matrix).
    public let planes: [Plane]
    private let release: (@Sendable () -> Void)?

    /// Wraps existing planes (e.g. a decoder's frame). `release` runs once, when the buffer and
    /// every image reading it are gone.
    public init(
        width: Int, height: Int, format: CIYCbCrFormat,
        planes: [(baseAddress: UnsafeMutableRawPointer, bytesPerRow: Int)],
        release: (@Sendable () -> Void)?
    ) throws(CIPlanarBufferError) {
        guard width > 0, height > 0, width <= 1 << 20, height <= 1 << 20 else { throw .invalidSize(width: width, height: height) }
        guard (8...16).contains(format.bitDepth) else { throw .unsupportedBitDepth(format.bitDepth) }
        guard planes.count == 3 else { throw .wrongPlaneCount(planes.count) }
        let (sx, sy) = format.chromaShift
        let cw = (width + (1 << sx) - 1) >> sx, ch = (height + (1 << sy) - 1) >> sy
        var made: [Plane] = []
        for (i, p) in planes.enumerated() {
            let w = i == 0 ? width : cw, h = i == 0 ? height : ch
            let needed = w * format.bytesPerSample
            guard p.bytesPerRow >= needed else { throw .planeTooSmall(plane: i, bytesPerRow: p.bytesPerRow, needed: needed) }
            made.append(Plane(baseAddress: p.baseAddress, bytesPerRow: p.bytesPerRow, width: w, height: h))
        }
        self.width = width; self.height = height; self.format = format; self.planes = made; self.release = release
    }

    /// A buffer with planes of its own (rows 64-byte aligned), zero-filled.
    public convenience init(width: Int, height: Int, format: CIYCbCrFormat) throws(CIPlanarBufferError) {
        guard width > 0, height > 0, width <= 1 << 20, height <= 1 << 20 else { throw .invalidSize(width: width, height: height) }
        let (sx, sy) = format.chromaShift
        let cw = (width + (1 << sx) - 1) >> sx, ch = (height + (1 << sy) - 1) >> sy
        let bps = format.bitDepth > 8 ? 2 : 1
        let rows = [(width, height), (cw, ch), (cw, ch)].map { (w, h) in ((w * bps + 63) / 64 * 64, h) }
        let total = rows.reduce(0) { $0 + $1.0 * $1.1 }
        let memory = UnsafeMutableRawPointer.allocate(byteCount: max(total, 64), alignment: 64)
        memory.initializeMemory(as: UInt8.self, repeating: 0, count: max(total, 64))
        var offset = 0
        var planes: [(baseAddress: UnsafeMutableRawPointer, bytesPerRow: Int)] = []
        for (bpr, h) in rows {
            planes.append((memory + offset, bpr))
            offset += bpr * h
        }
        let owned = OwnedMemory(memory)
        try self.init(width: width, height: height, format: format, planes: planes, release: { owned.free() })
    }

    deinit { release?() }
}

/// Memory freed once by a planar buffer's release.
private final class OwnedMemory: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer
    init(_ p: UnsafeMutableRawPointer) { pointer = p }
    func free() { pointer.deallocate() }
}

extension CIImage {
    /// The pixels of a planar Y'CbCr (or G, B, R) buffer, converted into the working space as
    /// tiles read them: chroma upsampled (bilinear, at the buffer's chroma location), the
    /// matrix and range undone, then the transfer function and primaries as `CIYCbCrFormat`
    /// describes. Opaque; extent `(0, 0, width, height)`. Cyanotype's `CIImage(cvPixelBuffer:)`.
    public convenience init(planarBuffer: CIPlanarImageBuffer) {
        self.init(node: YCbCrSourceNode(buffer: planarBuffer, encoded: false))
    }
}

extension CIContext {
    /// Renders `bounds` of `image` (default: the buffer's size at the origin) into a planar
    /// buffer, top row first: colour to the buffer's primaries and transfer, then the matrix
    /// and range, chroma averaged over each subsampled block. Alpha is dropped (colour is
    /// taken as composited over black). A trailing sRGB conversion (a LUT or look) folds into
    /// the write, and an unfiltered frame of the same format is copied plane by plane.
    /// Cyanotype's `render(_:to:bounds:colorSpace:)` for a `CVPixelBuffer`.
    public func render(_ image: CIImage, to buffer: CIPlanarImageBuffer, bounds: CGRect? = nil) throws {
        let b = bounds ?? CGRect(x: 0, y: 0, width: buffer.width, height: buffer.height)
        let rect = try renderablePixels(b)
        guard rect.width == buffer.width, rect.height == buffer.height else {
            throw CIRenderError.bufferTooSmall(needed: rect.area, given: buffer.width * buffer.height)
        }
        guard buffer.format.transferFunction == .sdr else {
            throw CIPlanarBufferError.unsupportedDestination("\(buffer.format.transferFunction.rawValue) output is not supported; render SDR")
        }
        // Without colour management tiles hold the values as they are.
        let writer = YCbCrWriter(buffer: buffer, bounds: rect, encodedInput: workingColorSpace == nil)
        try Render(node: image.node, rect: rect, delivery: .planes(writer), environment: environment).run()
    }
}
