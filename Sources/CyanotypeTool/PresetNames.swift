import Cyanotype
import Foundation
import Instafilter

/// Named looks from Instafilter, by forgiving name: "Clarendon", "lo-fi", "X-Pro II", "1977".
package enum Presets {
    /// Names as people write them -> Instafilter's recipe names.
    private static let aliases = ["xproii": "xpro2", "xpro": "xpro2", "trix": "trix", "trix400": "trix"]

    package static func key(_ name: String) -> String {
        let k = name.lowercased().filter { $0.isLetter || $0.isNumber }
        let bare = k.hasPrefix("insta") && k.count > 5 ? String(k.dropFirst(5)) : k
        return aliases[bare] ?? bare
    }

    package static func make(_ name: String) throws(CLIError) -> BaseFilter {
        do {
            return try FilterRegistry.make(key(name))
        } catch {
            let hint = Suggest.hint(name, in: FilterRegistry.names)
            throw .usage(
                "unknown preset '\(name)'" + (hint.isEmpty ? "; presets are \(FilterRegistry.names.joined(separator: ", "))" : hint)
                    + " (see 'cyanotype preset list')")
        }
    }
}
