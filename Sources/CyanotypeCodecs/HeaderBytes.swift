import Foundation

/// The bytes of an image file that reading its header needs, read without the rest: opening a
/// 20 MB photo reads a few kilobytes. `data` is as long as the file; the byte ranges its
/// header lies in (JPEG: every marker segment up to the start of the scan; PNG: every chunk
/// before the image data; still WebP: every chunk but the image data's, of which only the
/// frame header) hold the file's bytes, the rest reads as zeros (untouched pages of an
/// anonymous mapping: they cost no memory). Other formats (TIFF, whose directories may lie
/// anywhere; GIF, HEIF, JPEG XL, animations), small files and files that are not regular are
/// read whole (`isWhole`). Whatever decodes the pixels of a file read in part reads it again
/// through `file`, which refuses a file changed since (the header's bytes are never decoded
/// as pixels).
public struct HeaderBytes: Sendable {
    /// The file's bytes where its header needs them (all of them when `isWhole`).
    public let data: Data
    /// Whether `data` is the whole file.
    public let isWhole: Bool
    /// The file as it was read; nil for a file that is not regular (a pipe, a device).
    public let file: FileIdentity?

    /// Files up to this size are read whole: a second read would cost more than it saves.
    static let wholeBelow = 256 << 10
    /// The first read of a larger file; most headers lie within it.
    static let firstRead = 64 << 10

    /// Reads the header bytes of the file at `path`; `.ioError` names what failed (no such
    /// file, no permission, a read error, a file shortened while it was read).
    public init(readingFileAt path: String) throws(ImageFileError) {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .ioError(path: path, detail: String(cString: strerror(errno))) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw .ioError(path: path, detail: String(cString: strerror(errno))) }
        guard st.st_mode & S_IFMT == S_IFREG else {
            // A pipe or device: read what it gives, once.
            let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: false)
            do { data = try handle.readToEnd() ?? Data() } catch { throw .ioError(path: path, detail: ImageCodecs.ioDetail(error)) }
            (isWhole, file) = (true, nil)
            return
        }
        file = FileIdentity(fileDescriptor: fd, path: path)
        let size = Int(st.st_size)
        let reader = PositionalReader(fd: fd, path: path)
        if size <= Self.wholeBelow {
            data = try reader.whole(size: size)
            isWhole = true
            return
        }
        let prefix = try reader.read(0, Self.firstRead)
        guard let ranges = Self.headerRanges(prefix: prefix, size: size, read: { reader.bytes($0, $1) }) else {
            data = try reader.whole(size: size)
            isWhole = true
            return
        }
        data = try reader.sparse(size: size, prefix: prefix, ranges: ranges)
        isWhole = false
    }

    /// The byte ranges (beyond `prefix`, the file's first bytes) that the header of a file of
    /// `size` bytes lies in; nil when the file must be read whole. `read(offset, count)` gives
    /// the bytes there (fewer at the end).
    static func headerRanges(prefix: [UInt8], size: Int, read: (Int, Int) -> [UInt8]) -> [Range<Int>]? {
        func at(_ offset: Int, _ count: Int) -> [UInt8] {
            offset + count <= prefix.count ? Array(prefix[offset..<(offset + count)]) : read(offset, count)
        }
        let slack = 4 << 10
        if prefix.starts(with: [0xFF, 0xD8]) {
            // JPEG: marker segments from SOI to the start of the scan (libjpeg's header read
            // stops there).
            var pos = 2
            while true {
                let m = at(pos, 4)
                guard m.count == 4, m[0] == 0xFF else { return nil }
                if m[1] == 0xFF { pos += 1; continue }
                if m[1] == 0x01 || (0xD0...0xD7).contains(m[1]) { pos += 2; continue }
                if m[1] == 0xD9 { return nil }
                let length = Int(m[2]) << 8 | Int(m[3])
                guard length >= 2 else { return nil }
                pos += 2 + length
                if m[1] == 0xDA { return [0..<min(size, pos + slack)] }
                guard pos < size else { return nil }
            }
        }
        if prefix.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            // PNG: the chunks before the first IDAT, and its start; an animation (acTL) reads
            // whole.
            var pos = 8
            for _ in 0..<10_000 {
                let h = at(pos, 8)
                guard h.count == 8 else { return nil }
                let length = Int(h[0]) << 24 | Int(h[1]) << 16 | Int(h[2]) << 8 | Int(h[3])
                switch String(decoding: h[4..<8], as: UTF8.self) {
                case "IDAT": return [0..<min(size, pos + slack)]
                case "acTL", "IEND": return nil
                default: pos += 12 + length
                }
            }
            return nil
        }
        if prefix.count >= 16, prefix.starts(with: Array("RIFF".utf8)), Array(prefix[8..<12]) == Array("WEBP".utf8) {
            // Still WebP: every chunk, but only the first bytes (the frame header) of the image
            // data's; an animation reads whole.
            var ranges: [Range<Int>] = [0..<12]
            var pos = 12
            var chunks = 0
            while pos + 8 <= size {
                let h = at(pos, 8)
                guard h.count == 8, chunks < 1024 else { return nil }
                let fourCC = String(decoding: h[0..<4], as: UTF8.self)
                let length = Int(h[4]) | Int(h[5]) << 8 | Int(h[6]) << 16 | Int(h[7]) << 24
                let next = pos + 8 + length + (length & 1)
                switch fourCC {
                case "ANMF", "ANIM": return nil
                case "VP8X":
                    let flags = at(pos + 8, 1)
                    guard flags.count == 1, flags[0] & 0x02 == 0 else { return nil }
                    ranges.append(pos..<min(size, next))
                case "VP8 ", "VP8L", "ALPH": ranges.append(pos..<min(size, pos + 8 + min(length, slack)))
                default: ranges.append(pos..<min(size, next))
                }
                pos = next
                chunks += 1
            }
            return ranges
        }
        return nil
    }
}

/// `pread` on an open file: the header reader's only way to its bytes.
private struct PositionalReader {
    let fd: Int32
    let path: String

    /// Up to `count` bytes from `offset` (fewer at the end of the file, or before a read error).
    func bytes(_ offset: Int, _ count: Int) -> [UInt8] {
        guard offset >= 0, count > 0 else { return [] }
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, n in
            n = fill(buffer.baseAddress!, offset, count)
        }
    }

    /// `count` bytes from `offset` or fewer at the end; `.ioError` when the read fails.
    func read(_ offset: Int, _ count: Int) throws(ImageFileError) -> [UInt8] {
        var failure: Int32 = 0
        let b = [UInt8](unsafeUninitializedCapacity: count) { buffer, n in
            n = fill(buffer.baseAddress!, offset, count, error: &failure)
        }
        if failure != 0 { throw .ioError(path: path, detail: String(cString: strerror(failure))) }
        return b
    }

    /// Reads into `p` until `count` bytes or the end of the file; the count read.
    private func fill(_ p: UnsafeMutablePointer<UInt8>, _ offset: Int, _ count: Int) -> Int {
        var ignored: Int32 = 0
        return fill(p, offset, count, error: &ignored)
    }

    private func fill(_ p: UnsafeMutablePointer<UInt8>, _ offset: Int, _ count: Int, error: inout Int32) -> Int {
        var done = 0
        while done < count {
            let n = pread(fd, p + done, count - done, off_t(offset + done))
            if n < 0 {
                if errno == EINTR { continue }
                error = errno
                break
            }
            if n == 0 { break }
            done += n
        }
        return done
    }

    /// The whole file of `size` bytes (as `fstat` gave it).
    func whole(size: Int) throws(ImageFileError) -> Data {
        let b = try read(0, size)
        guard b.count == size else { throw shortened(b.count, size) }
        return Data(b)
    }

    /// A zeroed anonymous mapping of `size` bytes holding `prefix` and the bytes of `ranges`.
    func sparse(size: Int, prefix: [UInt8], ranges: [Range<Int>]) throws(ImageFileError) -> Data {
        guard let map = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), map != MAP_FAILED else {
            throw .ioError(path: path, detail: "cannot map \(size) bytes: \(String(cString: strerror(errno)))")
        }
        let base = map.assumingMemoryBound(to: UInt8.self)
        prefix.withUnsafeBufferPointer { base.update(from: $0.baseAddress!, count: min(size, $0.count)) }
        for r in ranges where r.upperBound > prefix.count {
            let lower = max(r.lowerBound, prefix.count)
            var failure: Int32 = 0
            let n = fill(base + lower, lower, r.upperBound - lower, error: &failure)
            guard failure == 0, n == r.upperBound - lower else {
                munmap(map, size)
                if failure != 0 { throw .ioError(path: path, detail: String(cString: strerror(failure))) }
                throw shortened(lower + n, size)
            }
        }
        return Data(bytesNoCopy: map, count: size, deallocator: .custom { p, n in munmap(p, n) })
    }

    private func shortened(_ read: Int, _ size: Int) -> ImageFileError {
        .ioError(path: path, detail: "the file changed while it was read (\(read) of \(size) bytes); read it again")
    }
}
