import Cyanotype
import Foundation

// AVFoundation's completion-handler spellings, which code older than async/await (and much
// code since) is written with.

#if !canImport(Darwin)
/// Foundation's out-parameter for an error (`var error: NSError?` passed as `&error`), which
/// swift-corelibs-foundation does not declare.
public typealias NSErrorPointer = UnsafeMutablePointer<NSError?>?
#endif

/// Whether one of an asset's properties is loaded (`AVAsset.statusOfValue(forKey:error:)`).
public enum AVKeyValueStatus: Int, Sendable {
    /// Not asked for yet.
    case unknown = 0
    /// Being loaded.
    case loading = 1
    /// Loaded: reading the property does not block.
    case loaded = 2
    /// Could not be loaded (the error says why).
    case failed = 3
    /// Loading was cancelled.
    case cancelled = 4
}

extension AVAsset {
    /// The property names `loadValuesAsynchronously(forKeys:)` knows, as AVFoundation spells them.
    static let loadableKeys: Set<String> = [
        "duration", "tracks", "playable", "readable", "exportable", "preferredTransform", "metadata", "commonMetadata",
        "availableMetadataFormats", "hasProtectedContent", "composable", "providesPreciseDurationAndTiming",
    ]

    /// Reads the file's header on another thread, then calls `handler` (on that thread):
    /// afterwards `statusOfValue(forKey:error:)` says whether each key loaded.
    public func loadValuesAsynchronously(forKeys keys: [String], completionHandler handler: (@Sendable () -> Void)? = nil) {
        Executor.startThread(name: "cyanotype-asset-load") { [self] in
            _ = try? mediaInfo()
            handler?()
        }
    }

    /// Whether `key` is loaded: `.loaded` once the header is read, `.failed` (with the reason
    /// in `outError`) when the file cannot be read or the key is not one AVFoundation loads.
    /// Reads the header if it has not been read yet.
    public func statusOfValue(forKey key: String, error outError: NSErrorPointer) -> AVKeyValueStatus {
        do {
            _ = try mediaInfo()
        } catch {
            outError?.pointee = NSError(domain: "AVFoundationErrorDomain", code: -11800, userInfo: [NSLocalizedDescriptionKey: error.description])
            return .failed
        }
        guard AVAsset.loadableKeys.contains(key) else {
            outError?.pointee = NSError(
                domain: "AVFoundationErrorDomain", code: -11800, userInfo: [NSLocalizedDescriptionKey: "\"\(key)\" is not a property an asset loads"])
            return .failed
        }
        return .loaded
    }
}

extension AVVideoComposition {
    /// The completion-handler spelling of `videoComposition(with:applyingCIFiltersWithHandler:)`:
    /// `completionHandler` gets the composition, or nil and the error when the asset cannot
    /// be read. It runs on another thread, once.
    public static func videoComposition(
        with asset: AVAsset, applyingCIFiltersWithHandler applier: @escaping (AVAsynchronousCIImageFilteringRequest) -> Void,
        completionHandler: @escaping @Sendable (AVVideoComposition?, (any Error)?) -> Void
    ) {
        let result: Result<AVVideoComposition, VideoError>
        do throws(VideoError) {
            _ = try asset.mediaInfo()
            result = .success(AVVideoComposition(asset: asset, applyingCIFiltersWithHandler: applier))
        } catch {
            result = .failure(error)
        }
        Executor.startThread(name: "cyanotype-composition") {
            switch result {
            case .success(let composition): completionHandler(composition, nil)
            case .failure(let error): completionHandler(nil, error)
            }
        }
    }
}
