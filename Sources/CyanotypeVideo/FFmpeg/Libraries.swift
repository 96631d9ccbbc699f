import CDeferredLibraries
import CFFmpegShim
import Cyanotype

/// FFmpeg's libraries, opened on first use rather than when the process starts (with what they
/// pull in, about a hundred libraries a still-image job never needs; see CDeferredLibraries.h).
enum FFmpegLibraries {
    /// Opens libavutil, libavcodec, libavformat and libswscale (at once after the first time) and
    /// quiets FFmpeg's logging, or throws `.libraryUnavailable` with the loader's reason.
    static func load() throws(VideoError) {
        let libraries = [CY_LIBRARY_AVUTIL, CY_LIBRARY_AVCODEC, CY_LIBRARY_AVFORMAT, CY_LIBRARY_SWSCALE]
        if let message = DeferredLibrary.failure(loading: libraries) { throw .libraryUnavailable(message) }
        cy_configure_logging()
    }
}
