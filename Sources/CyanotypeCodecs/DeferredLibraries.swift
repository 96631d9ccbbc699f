import CDeferredLibraries

/// Libraries a format needs that are opened on first use rather than at start-up (see
/// CDeferredLibraries.h): a process that never reads a HEIF or JPEG XL file never maps them.
enum DeferredLibraries {
    /// Opens `libraries` (at once when already open), or throws `.libraryUnavailable` naming the
    /// format, the library file and the loader's reason.
    static func load(_ libraries: cy_library...) throws(CodecError) {
        for library in libraries {
            var message = [CChar](repeating: 0, count: 400)
            guard cy_library_load(library, &message, message.count) == 0 else {
                throw .libraryUnavailable(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
        }
    }
}
