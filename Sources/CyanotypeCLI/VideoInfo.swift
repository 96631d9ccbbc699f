import CyanotypeVideo
import Foundation

/// What `cyanotype info` prints for a movie, from CyanotypeVideo's public API.
struct MovieFacts {
    let file: String
    let asset: AVAsset

    init(_ asset: AVURLAsset) throws {
        try asset.validate()
        self.asset = asset
        file = asset.url.path
    }

    private var video: AVAssetTrack? { asset.tracks(withMediaType: .video).first }
    private var audio: [AVAssetTrack] { asset.tracks(withMediaType: .audio) }

    var dictionary: [String: Any] {
        var o: [String: Any] = [
            "file": file, "container": asset.containerFormat?.description ?? "unknown",
            "duration": asset.duration.seconds, "bytes": asset.fileSize,
        ]
        if let v = video {
            var d: [String: Any] = [
                "codec": v.codecName, "width": Int(v.naturalSize.width), "height": Int(v.naturalSize.height),
                "frameRate": Double(v.nominalFrameRate), "rotation": v.rotation, "bitDepth": v.bitDepth,
            ]
            if let p = v.pixelFormatName { d["pixelFormat"] = p }
            if let c = v.colorDescription { d["color"] = c }
            if v.declaredFrameCount > 0 { d["frames"] = v.declaredFrameCount }
            o["video"] = d
        }
        o["audio"] = audio.map { a -> [String: Any] in
            ["codec": a.codecName, "sampleRate": Int(a.sampleRate), "channels": a.channelCount, "layout": a.channelLayout ?? ""]
        }
        return o
    }

    var lines: [String] {
        let bytes = asset.fileSize
        var l = [
            "file:        \(file) (\(bytes) bytes)",
            "container:   \(asset.containerFormat?.description ?? "unknown")",
            String(format: "duration:    %.3f s", asset.duration.seconds),
        ]
        if let v = video {
            let frames = v.declaredFrameCount > 0 ? ", \(v.declaredFrameCount) frames" : ""
            l.append(
                "video:       \(v.codecName), \(Int(v.naturalSize.width))x\(Int(v.naturalSize.height)), "
                    + String(format: "%.3f fps", Double(v.nominalFrameRate)) + frames)
            l.append("pixels:      \(v.pixelFormatName ?? "unknown"), \(v.bitDepth)-bit")
            l.append("rotation:    \(v.rotation == 0 ? "none" : "\(v.rotation) degrees clockwise for display")")
            l.append("colour:      \(v.colorDescription ?? "unknown") (matrix, range, transfer, primaries)")
        }
        if audio.isEmpty { l.append("audio:       none") }
        for a in audio {
            l.append("audio:       \(a.codecName), \(Int(a.sampleRate)) Hz, \(a.channelCount) channel(s)\(a.channelLayout.map { " (\($0))" } ?? "")")
        }
        return l
    }
}
