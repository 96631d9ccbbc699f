import Foundation

/// A file as it was when read: its path and what identifies its contents (device, inode, size,
/// modification time), so a later reader can tell it still holds the same bytes.
public struct FileIdentity: Sendable, Equatable {
    /// The path the file was read from.
    public let path: String
    let device: UInt64, inode: UInt64, size: Int64, modifiedSeconds: Int, modifiedNanoseconds: Int

    /// The identity of the open file `fd` (read from `path`); nil when it cannot be examined.
    public init?(fileDescriptor fd: Int32, path: String) {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return nil }
        self.init(path: path, st)
    }

    private init(path: String, _ st: stat) {
        self.path = path
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
        size = Int64(st.st_size)
        modifiedSeconds = Int(st.st_mtim.tv_sec)
        modifiedNanoseconds = Int(st.st_mtim.tv_nsec)
    }

    /// The file's bytes, checking it is still the file this describes (else `.ioError`).
    public func contents() throws(ImageFileError) -> Data {
        let fd = try open()
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        do {
            return try handle.readToEnd() ?? Data()
        } catch {
            throw .ioError(path: path, detail: (error as NSError).localizedDescription)
        }
    }

    /// Opens the file for reading, checking it is still the file this describes.
    func open() throws(ImageFileError) -> Int32 {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .ioError(path: path, detail: String(cString: strerror(errno))) }
        var st = stat()
        guard fstat(fd, &st) == 0, FileIdentity(path: path, st) == self else {
            close(fd)
            throw .ioError(path: path, detail: "the file changed since it was read; read it again")
        }
        return fd
    }
}
