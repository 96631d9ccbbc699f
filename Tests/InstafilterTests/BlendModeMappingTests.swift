import Cyanotype
import Foundation
import Testing
@testable import Instafilter

/// CSS blend modes run on the engine's blend functions (`CIBlendKernel`'s), the ones Core
/// Image's filters of the same name use.
@Suite struct BlendModeMappingTests {
    @Test(arguments: CSSBlendMode.allCases)
    func everyModeHasTheEnginesBlendFunction(mode: CSSBlendMode) throws {
        let function = try #require(mode.blendKernel.blendFunction, "\(mode)")
        #expect(CompiledOverlay(CSSOverlay(.color(CSSColor(10, 20, 30)), blend: mode)).blend == function)
    }

    /// The kernel and the filter `ciFilterName` names compute the same thing (in the working
    /// space), so the mapping cannot drift.
    @Test(arguments: CSSBlendMode.allCases)
    func kernelMatchesTheNamedFilter(mode: CSSBlendMode) throws {
        let (card, _) = testCard(width: 12, height: 8)
        let fill = CIImage(color: CIColor(red: 0.9, green: 0.4, blue: 0.2, alpha: 0.7)).cropped(to: card.extent)
        let viaKernel = try #require(mode.blendKernel.apply(foreground: fill, background: card))
        let viaFilter = fill.applyingFilter(mode.ciFilterName, parameters: [kCIInputBackgroundImageKey: card])
        #expect(try pixels(viaKernel) == pixels(viaFilter), "\(mode)")
    }
}
