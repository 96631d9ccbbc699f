/// Why a LUT could not be read, built or applied. Every case names what went wrong and, in
/// its message, what to do about it.
public enum LUTError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A grid size below 2.
    case sizeBelowMinimum(size: Int, minimum: Int)
    /// A grid size above what is accepted (256 for LUTs, 128 by default when reading).
    case sizeAboveLimit(size: Int, limit: Int)
    /// A table holds fewer entries than its size needs.
    case missingEntries(expected: Int, found: Int)
    /// A table holds more entries than its size needs.
    case tooManyEntries(expected: Int, found: Int)
    /// A table entry is NaN or infinite (entry index, red fastest).
    case nonFiniteValue(entry: Int)
    /// DOMAIN_MIN must be below DOMAIN_MAX in every channel, and both finite.
    case invalidDomain(min: SIMD3<Float>, max: SIMD3<Float>)
    /// A tile-grid LUT image that is not square and not a ceil(sqrt(N))-column grid either.
    case tileGridNotSquare(width: Int, height: Int)
    /// An image whose size does not fit the layout asked for (or any layout).
    case imageSizeNotALUT(width: Int, height: Int, layout: String)
    /// The image could not be decoded or rendered.
    case unreadableImage(reason: String)
    /// A file could not be read.
    case unreadableFile(path: String, reason: String)
    /// A file could not be written.
    case unwritableFile(path: String, reason: String)
    /// A file extension that is neither a LUT text format nor an image.
    case unknownFileType(path: String)
    /// A text LUT that is not UTF-8 / ASCII text.
    case notText
    /// A number that does not parse (1-based line).
    case invalidNumber(line: Int)
    /// A number that parses to NaN or infinity (1-based line).
    case nonFiniteNumber(line: Int)
    /// A line with the wrong number of values.
    case wrongValueCount(line: Int, expected: Int, found: Int)
    /// A `.cube` file without LUT_3D_SIZE or LUT_1D_SIZE.
    case missingSize
    /// A keyword given twice, or after the table started.
    case misplacedKeyword(keyword: String, line: Int)
    /// A `.3dl` file without its header line of input breakpoints.
    case missingBreakpoints
    /// `.3dl` breakpoints that are not increasing integers.
    case invalidBreakpoints(line: Int)
    /// A `.3dl` integer outside 0...65535, or above the declared output depth.
    case valueOutOfRange(line: Int, value: Int, maximum: Int)
    /// The LUT cannot be written in that format (e.g. a 1D shaper in a `.3dl`).
    case unrepresentable(format: String, reason: String)
    /// `CIColorCube` data whose length is not dimension^3 * 16 bytes.
    case cubeDataSize(dimension: Int, expected: Int, found: Int)
    /// A `CILUTFilter` with no LUT set.
    case noLUT
    /// A `CILUTFilter` with no input image.
    case missingInputImage
    /// A look name that is not in the `LUTConfiguration`.
    case unknownLook(name: String, available: [String])

    /// What went wrong and what to do about it.
    public var description: String {
        switch self {
        case let .sizeBelowMinimum(size, minimum):
            return "LUT size \(size) is too small: a LUT needs at least \(minimum) points per axis"
        case let .sizeAboveLimit(size, limit):
            return
                "LUT size \(size) is above the limit of \(limit) points per axis (\(size)^3 entries); resample it to \(limit) or less, or raise the limit where the reader takes one"
        case let .missingEntries(expected, found):
            return "LUT table is incomplete: expected \(expected) entries, found \(found)"
        case let .tooManyEntries(expected, found):
            return "LUT table has extra data: expected \(expected) entries, found \(found)"
        case let .nonFiniteValue(entry):
            return "LUT entry \(entry) is NaN or infinite"
        case let .invalidDomain(lo, hi):
            return "LUT domain is empty or not finite: min (\(lo.x), \(lo.y), \(lo.z)) must be below max (\(hi.x), \(hi.y), \(hi.z)) in every channel"
        case let .tileGridNotSquare(w, h):
            return
                "a \(w)x\(h) image is not a tile-grid LUT: tile grids are square (N*sqrt(N) pixels a side: 64x64 for 16^3, 512x512 for 64^3), or ceil(sqrt(N)) tiles wide for other N; for a strip or a Hald image, say which layout"
        case let .imageSizeNotALUT(w, h, layout):
            return "a \(w)x\(h) image does not hold a LUT in the \(layout) layout"
        case let .unreadableImage(reason):
            return "the LUT image could not be read: \(reason)"
        case let .unreadableFile(path, reason):
            return "cannot read LUT file '\(path)': \(reason)"
        case let .unwritableFile(path, reason):
            return "cannot write LUT file '\(path)': \(reason)"
        case let .unknownFileType(path):
            return "'\(path)' is not a LUT file this library reads: use .cube, .3dl, or a PNG/JPEG/WebP LUT image"
        case .notText:
            return "the LUT file is not text (expected a .cube or .3dl text file)"
        case let .invalidNumber(line):
            return "line \(line): not a number"
        case let .nonFiniteNumber(line):
            return "line \(line): NaN or infinite value"
        case let .wrongValueCount(line, expected, found):
            return "line \(line): expected \(expected) values, found \(found)"
        case .missingSize:
            return "the .cube file has no LUT_3D_SIZE (or LUT_1D_SIZE) line before its table"
        case let .misplacedKeyword(keyword, line):
            return "line \(line): \(keyword) is repeated or comes after the table started"
        case .missingBreakpoints:
            return "the .3dl file has no header line of input breakpoints (e.g. 0 64 128 ... 1023)"
        case let .invalidBreakpoints(line):
            return "line \(line): .3dl input breakpoints must be at least 2 increasing non-negative integers"
        case let .valueOutOfRange(line, value, maximum):
            return "line \(line): value \(value) is outside 0...\(maximum)"
        case let .unrepresentable(format, reason):
            return "the LUT cannot be written as \(format): \(reason)"
        case let .cubeDataSize(dimension, expected, found):
            return "cube data is \(found) bytes but a cube of dimension \(dimension) needs \(dimension)^3 RGBA float32 entries = \(expected) bytes"
        case .missingInputImage:
            return "no input image: set the filter's inputImage"
        case .noLUT:
            return "no LUT set: give the filter a LUT image, a LUT, or a LUT file"
        case let .unknownLook(name, available):
            return "no look named '\(name)'; the looks are \(available.joined(separator: ", "))"
        }
    }
}
