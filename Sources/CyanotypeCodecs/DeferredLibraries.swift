import CDeferredLibraries

/// Libraries opened on first use rather than at start-up (see CDeferredLibraries.h): a process
/// that never reads a HEIF or JPEG XL file, a video or serves HTTP never maps them.
package enum DeferredLibraries {
    /// Opens `libraries` in turn (at once when already open); nil when all are open, else the
    /// loader's sentence naming what needed the first one that failed, its file and the reason.
    package static func failure(loading libraries: [cy_library]) -> String? {
        for library in libraries {
            var message = [CChar](repeating: 0, count: 400)
            if cy_library_load(library, &message, message.count) != 0 {
                return String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
        }
        return nil
    }

    /// Opens `libraries`, or throws `.libraryUnavailable` with the loader's reason.
    static func load(_ libraries: cy_library...) throws(ImageFileError) {
        if let message = failure(loading: libraries) { throw .libraryUnavailable(message) }
    }
}
