import Cyanotype
import Foundation

/// The library's errors retold in the tool's terms: the file or argument at fault first, then
/// what went wrong and what to do, with no library API names.
package enum Messages {
    /// A file that could not be read: `file` is the name as the user spelled it.
    package static func reading(_ e: ImageFileError, file: String) -> String {
        switch e {
        case .unsupportedFormat(let seen):
            return "\(file): not an image this tool reads (\(seen)); it reads JPEG, PNG, WebP, TIFF, GIF, HEIF, AVIF and JPEG XL"
        case .empty:
            return "\(file): the file is empty (0 bytes)"
        case .truncated(let detail):
            return "\(file): the file is truncated (\(detail)); re-export or re-download it"
        case .corrupt(let detail):
            return "\(file): the file is damaged (\(detail))"
        case let .tooLarge(w, h, limit):
            return "\(file): the image is \(w)x\(h) pixels, above the limit of \(limit) pixels; raise it with --pixel-limit"
        case .ioError(_, let detail):
            return "\(file): cannot read the file (\(detail))"
        case .encodeFailed(let detail), .invalidArgument(let detail):
            return "\(file): \(detail)"
        case let .tooManyFrames(count, limit):
            return "\(file): the file holds \(count > limit ? "more than \(limit)" : "\(count)") frames or pages, above the limit of \(limit) for its size"
        case .libraryUnavailable:
            return "\(file): \(e.description)"
        }
    }

    /// A failed render or encode: a source that failed is the input's fault, the rest the
    /// output's.
    package static func writing(_ e: ImageIOError, input: String?, output: String) -> CLIError {
        let out = output == "-" ? "<stdout>" : output
        switch e {
        case let .codec(path, c):
            if path != nil, let input { return .failure(reading(c, file: input)) }
            return .failure("\(out): cannot encode the image (\(c.description))")
        case .render(let r):
            return render(r, input: input, output: out)
        case .unsupportedOutput(let what):
            return .failure("\(out): \(what)")
        case .writeFailed(_, let detail):
            return .failure("\(out): cannot write the file (\(detail))")
        }
    }

    package static func render(_ r: CIRenderError, input: String?, output: String) -> CLIError {
        switch r {
        case .sourceFailed(let why):
            return .failure("\(input.map { $0 == "-" ? "<stdin>" : $0 } ?? output): \(decodeFailure(why))")
        case let .tooLarge(w, h, limit):
            return .failure("\(output): the result would be \(w)x\(h) pixels, above the limit of \(limit) pixels; raise it with --pixel-limit")
        case .infiniteExtent:
            return .failure("\(output): the result has no edges (an infinite image); add a crop, e.g. --crop 512x512+0+0")
        case .emptyBounds:
            return .failure("\(output): the result is empty (nothing inside the picture)")
        default:
            return .failure("\(output): \(r.description)")
        }
    }

    /// The decoder's reason, as the render reports it (a string), without its API advice.
    package static func decodeFailure(_ why: String) -> String {
        var text = why
        for (library, ours) in [
            ("image data is truncated", "the file is truncated"),
            (
                "; the file is incomplete: re-export or re-download it, or decode with strict: false to keep the rows that were read",
                "; re-export or re-download it"
            ),
            ("image data is corrupt", "the file is damaged"),
            ("; the file is damaged or not a valid image", ""),
            ("raise DecodeLimits.maxPixels to allow it", "raise it with --pixel-limit"),
        ] {
            text = text.replacingOccurrences(of: library, with: ours)
        }
        return text
    }

    /// A filter that refused its inputs, named as the user wrote it.
    package static func filter(_ e: CIFilterError) -> CLIError {
        func short(_ f: String) -> String { Names.shortFilter(f) }
        switch e {
        case .unknownFilter(let n):
            return .usage(Names.unknownFilterMessage(n))
        case let .unknownKey(f, k, valid):
            let keys = valid.map(Names.shortKey)
            let hint = Suggest.hint(k, in: keys)
            return .usage("\(short(f)) has no input '\(k)'" + hint + (hint.isEmpty ? "; its" : " Its") + " inputs are \(keys.joined(separator: ", "))")
        case let .missingInput(f, k):
            return .usage(missingInput(filter: f, key: k))
        case let .wrongType(f, k, expected, got):
            return .usage("\(short(f)) \(Names.shortKey(k)): expects \(expected), got \(got)")
        case let .nonFinite(f, k):
            return .usage("\(short(f)) \(Names.shortKey(k)): must be a finite number")
        case let .invalidValue(f, k, reason):
            return .usage("\(short(f)) \(Names.shortKey(k)): \(reason)")
        case let .unavailable(f, needs):
            // Not the user's typing: the filter exists only where Apple's frameworks do.
            return .failure("\(short(f)) is not available here: it needs \(needs)")
        }
    }

    /// What to add for an input the filter cannot do without.
    package static func missingInput(filter f: String, key k: String) -> String {
        let name = Names.shortFilter(f), key = Names.shortKey(k)
        let input = CIFilter.descriptor(forFilterName: f)?.input(k)
        switch input?.className {
        case "CIImage" where k == kCIInputImageKey:
            return "\(name) needs an input image: use 'cyanotype apply INPUT --filter \(name)'"
        case "CIImage":
            return "\(name) needs an image for \(key): add \(key)=PATH to the filter spec"
        case "NSData", "NSString":
            return "\(name) needs \(key)=\"TEXT\" in the filter spec, e.g. '\(name) \(key)=\"hello\"'"
        default:
            return "\(name) needs a value for \(key): add \(key)=VALUE to the filter spec (see 'cyanotype describe \(name)')"
        }
    }

    /// A LUT file or look that could not be read: always the file's fault (exit 1).
    package static func lut(_ e: LUTError, file: String) -> CLIError {
        switch e {
        case let .sizeAboveLimit(size, limit):
            return .failure(
                "\(file): the LUT has \(size) points per axis, above the limit of \(limit); "
                    + "resample it with 'cyanotype lut convert \(file) OUT --size \(limit)'")
        case .unreadableFile(_, let reason):
            return .failure("\(file): cannot read the LUT file (\(reason))")
        case .unreadableImage(let reason):
            return .failure("\(file): cannot read the LUT image (\(decodeFailure(reason)))")
        default:
            let text = e.description
            return .failure(text.contains(file) ? text : "\(file): \(text)")
        }
    }
}
