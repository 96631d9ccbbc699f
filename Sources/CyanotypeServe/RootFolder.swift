import CyanotypeTool
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A file the server may read: where it is, and what identifies this version of it.
package struct RootFile: Sendable, Hashable {
    /// The name as the client gave it (relative to the root).
    package let name: String
    /// The real path (symbolic links resolved), inside the root.
    package let path: String
    /// Modification time in nanoseconds since 1970, and size in bytes: a new version of the
    /// file changes the ETag and misses the preview cache.
    package let modified: Int64
    package let size: Int64

    /// `name|mtime|size`, for cache keys and ETags.
    package var identity: String { "\(path)|\(modified)|\(size)" }
}

/// The folder the server serves images from. Names are relative paths inside it; absolute
/// paths, `..` and symbolic links that lead out of it are refused.
package struct RootFolder: Sendable {
    /// The root's real path, without a trailing slash.
    package let path: String

    package init(_ path: String) throws(ServeError) {
        guard let real = realpath(path, nil) else {
            throw ServeError(status: 500, code: "no_root", message: "\(path): no such folder")
        }
        defer { free(real) }
        let p = String(cString: real)
        var st = stat()
        guard stat(p, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else {
            throw ServeError(status: 500, code: "no_root", message: "\(path): is not a folder")
        }
        self.path = p == "/" ? "" : p
    }

    /// The file `name` names, checked to lie inside the root.
    package func resolve(_ name: String) throws(ServeError) -> RootFile {
        guard !name.isEmpty else { throw .badParameter("an empty file name") }
        guard !name.contains("\0") else { throw .badParameter("a file name with a NUL character") }
        if name.hasPrefix("/") || name.hasPrefix("~") {
            throw .outsideRoot("\(name): absolute paths are refused; name files relative to the served folder")
        }
        let parts = name.split(separator: "/", omittingEmptySubsequences: true)
        if parts.contains("..") {
            throw .outsideRoot("\(name): '..' is refused; name files inside the served folder")
        }
        let candidate = path + "/" + parts.filter { $0 != "." }.joined(separator: "/")
        guard let real = realpath(candidate, nil) else {
            throw .notFound("\(name): no such file")
        }
        defer { free(real) }
        let resolved = String(cString: real)
        guard resolved.hasPrefix(path + "/") else {
            throw .outsideRoot("\(name): a symbolic link leads out of the served folder")
        }
        var st = stat()
        guard stat(resolved, &st) == 0 else { throw .notFound("\(name): no such file") }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw .badParameter("\(name): is not a file") }
        let modified = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
        return RootFile(name: name, path: resolved, modified: modified, size: Int64(st.st_size))
    }

    /// Whether `name` names a file inside the root.
    package func contains(_ name: String) -> Bool { (try? resolve(name)) != nil }

    /// Relative paths of the files under the root whose extension is one of `extensions`,
    /// sorted, at most `limit`; hidden files and folders are skipped, and so are links
    /// that lead out of the root.
    package func files(extensions: Set<String>, limit: Int = 5000) -> [String] {
        let root = URL(fileURLWithPath: path.isEmpty ? "/" : path, isDirectory: true)
        guard
            let walker = FileManager.default.enumerator(
                at: root, includingPropertiesForKeys: [.isRegularFileKey],
                options: [.skipsHiddenFiles, .skipsPackageDescendants])
        else { return [] }
        var out: [String] = []
        let prefix = path + "/"
        while let url = walker.nextObject() as? URL {
            guard extensions.contains(url.pathExtension.lowercased()) else { continue }
            let full = url.path
            guard full.hasPrefix(prefix) else { continue }
            let name = String(full.dropFirst(prefix.count))
            guard contains(name) else { continue }
            out.append(name)
            if out.count >= limit { break }
        }
        return out.sorted()
    }

    /// `message` with the root's real path taken out, so answers never show where the
    /// server keeps its files.
    package func redact(_ message: String) -> String {
        guard !path.isEmpty else { return message }
        return message.replacingOccurrences(of: path + "/", with: "").replacingOccurrences(of: path, with: ".")
    }
}
