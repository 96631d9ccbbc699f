import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Where an encoder's bytes go as it makes them: into memory (`data`), or straight into an open
/// file, so a large output is never held whole. Not thread-safe: one thread appends, in order.
public final class ByteSink: @unchecked Sendable {
    /// The bytes appended so far, when collecting in memory (empty for a file).
    public private(set) var data = Data()
    /// Bytes appended so far.
    public private(set) var count = 0
    private let descriptor: Int32?
    /// The file offset of the first byte appended (where the descriptor stood when given).
    private let origin: Int64
    private let path: String
    private var buffer: UnsafeMutableRawPointer?
    private var buffered = 0
    private static let bufferBytes = 1 << 18

    /// A sink collecting the bytes in memory.
    public init() {
        descriptor = nil
        origin = 0
        path = ""
    }

    /// A sink writing to `fileDescriptor` (open for writing, owned by the caller); `path` names
    /// the file in errors.
    public init(fileDescriptor: Int32, path: String) {
        descriptor = fileDescriptor
        origin = Int64(lseek(fileDescriptor, 0, SEEK_CUR))
        self.path = path
        buffer = UnsafeMutableRawPointer.allocate(byteCount: Self.bufferBytes, alignment: 64)
    }

    deinit { buffer?.deallocate() }

    /// Appends `bytes`; a failed file write throws `.ioError` naming the file and the reason.
    public func append(_ bytes: UnsafeRawBufferPointer) throws(ImageFileError) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        count += bytes.count
        guard let buffer else {
            data.append(base.assumingMemoryBound(to: UInt8.self), count: bytes.count)
            return
        }
        if buffered + bytes.count > Self.bufferBytes { try flush() }
        if bytes.count >= Self.bufferBytes {
            try writeAll(base, bytes.count)
        } else {
            (buffer + buffered).copyMemory(from: base, byteCount: bytes.count)
            buffered += bytes.count
        }
    }

    /// Appends the bytes of `array`.
    public func append(_ array: [UInt8]) throws(ImageFileError) {
        let done = array.withUnsafeBytes { raw in Result { () throws(ImageFileError) in try append(raw) } }
        try done.get()
    }

    /// Appends the bytes of `data` (an encoder's whole output).
    public func append(_ data: Data) throws(ImageFileError) {
        let done = data.withUnsafeBytes { raw in Result { () throws(ImageFileError) in try append(raw) } }
        try done.get()
    }

    /// Writes what is buffered to the file (nothing for memory).
    public func flush() throws(ImageFileError) {
        guard let buffer, buffered > 0 else { return }
        let n = buffered
        buffered = 0
        try writeAll(UnsafeRawPointer(buffer), n)
    }

    /// Overwrites bytes already appended, `offset` bytes from the first (a TIFF's header and
    /// directory, written after its strips); a file that cannot seek (a pipe) throws `.ioError`.
    public func overwrite(at offset: Int, _ bytes: UnsafeRawBufferPointer) throws(ImageFileError) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        guard offset >= 0, offset + bytes.count <= count else {
            throw .invalidArgument("overwriting bytes \(offset)..<\(offset + bytes.count) of \(count) written")
        }
        guard let descriptor else {
            data.replaceSubrange(offset..<(offset + bytes.count), with: base.assumingMemoryBound(to: UInt8.self), count: bytes.count)
            return
        }
        try flush()
        guard origin >= 0 else { throw .ioError(path: path, detail: "the output cannot seek") }
        var done = 0
        while done < bytes.count {
            let w = pwrite(descriptor, base + done, bytes.count - done, off_t(origin) + off_t(offset + done))
            if w < 0 {
                if errno == EINTR { continue }
                throw .ioError(path: path, detail: String(cString: strerror(errno)))
            }
            done += w
        }
    }

    /// Reads back up to `into.count` bytes appended, from `offset` bytes after the first;
    /// returns how many were read.
    public func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws(ImageFileError) -> Int {
        guard let out = buffer.baseAddress, offset >= 0, offset < count else { return 0 }
        let n = min(buffer.count, count - offset)
        guard let descriptor else {
            data.withUnsafeBytes { raw in out.copyMemory(from: raw.baseAddress! + offset, byteCount: n) }
            return n
        }
        try flush()
        guard origin >= 0 else { throw .ioError(path: path, detail: "the output cannot seek") }
        var done = 0
        while done < n {
            let r = pread(descriptor, out + done, n - done, off_t(origin) + off_t(offset + done))
            if r < 0 {
                if errno == EINTR { continue }
                throw .ioError(path: path, detail: String(cString: strerror(errno)))
            }
            if r == 0 { break }
            done += r
        }
        return done
    }

    private func writeAll(_ base: UnsafeRawPointer, _ n: Int) throws(ImageFileError) {
        guard let descriptor else { return }
        var done = 0
        while done < n {
            let w = write(descriptor, base + done, n - done)
            if w < 0 {
                if errno == EINTR { continue }
                throw .ioError(path: path, detail: String(cString: strerror(errno)))
            }
            done += w
        }
    }
}
