/// Why a filter could not produce an image: the messages name the filter, the key and what
/// to do. `CIFilter.outputImage` returns nil for these; `makeOutputImage()` throws them.
public enum CIFilterError: Error, Sendable, Equatable, CustomStringConvertible {
    case unknownFilter(String)
    case unknownKey(filter: String, key: String, validKeys: [String])
    case missingInput(filter: String, key: String)
    case wrongType(filter: String, key: String, expected: String, got: String)
    case nonFinite(filter: String, key: String)
    case invalidValue(filter: String, key: String, reason: String)
    /// A filter whose work needs one of Apple's frameworks or an Apple device's data, which
    /// Cyanotype does not have (`needs` says what).
    case unavailable(filter: String, needs: String)

    public var description: String {
        switch self {
        case .unknownFilter(let n):
            return "unknown filter '\(n)': see CIFilter.filterNames(inCategory: nil) for the built-in names"
        case let .unknownKey(f, k, valid):
            return "\(f) has no input '\(k)'; its inputs are \(valid.joined(separator: ", "))"
        case let .missingInput(f, k):
            return "\(f) needs an image for '\(k)'"
        case let .wrongType(f, k, expected, got):
            return "\(f).\(k) expects \(expected), got \(got)"
        case let .nonFinite(f, k):
            return "\(f).\(k) must be a finite number (got NaN or infinity)"
        case let .invalidValue(f, k, reason):
            return "\(f).\(k): \(reason)"
        case let .unavailable(f, needs):
            return "\(f) cannot run here: it needs \(needs), found only on Apple's platforms"
        }
    }
}
