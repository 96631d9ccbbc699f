import CDeferredLibraries
import CFFmpegShim

/// FFmpeg's libraries, opened on first use rather than when the process starts (with what they
/// pull in, about a hundred libraries a still-image job never needs; see CDeferredLibraries.h).
enum FFmpegLibraries {
    /// Opens libavutil, libavcodec, libavformat and libswscale (at once after the first time) and
    /// quiets FFmpeg's logging, or throws `.libraryUnavailable` with the loader's reason.
    static func load() throws(VideoError) {
        for library in [CY_LIBRARY_AVUTIL, CY_LIBRARY_AVCODEC, CY_LIBRARY_AVFORMAT, CY_LIBRARY_SWSCALE] {
            var message = [CChar](repeating: 0, count: 400)
            guard cy_library_load(library, &message, message.count) == 0 else {
                throw .libraryUnavailable(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
        }
        cy_configure_logging()
    }
}
