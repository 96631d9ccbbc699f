// Scale, rotate and move with a CGAffineTransform chain, as layout code builds them.
import CoreImage
import Testing

@Suite struct AffineTransformChainIdiom {
    @Test func theExtentIsTheTransformedRectangle() {
        let image = CIImage(color: .gray).cropped(to: CGRect(x: 0, y: 0, width: 40, height: 20))
        let transform = CGAffineTransform(translationX: 100, y: 50).rotated(by: .pi / 2).scaledBy(x: 0.5, y: 0.5)
        let moved = image.transformed(by: transform)
        // Oracle: each corner mapped by x' = a x + c y + tx, y' = b x + d y + ty, then bounded.
        let corners = [CGPoint(x: 0, y: 0), CGPoint(x: 40, y: 0), CGPoint(x: 0, y: 20), CGPoint(x: 40, y: 20)].map { p in
            CGPoint(x: transform.a * p.x + transform.c * p.y + transform.tx, y: transform.b * p.x + transform.d * p.y + transform.ty)
        }
        let minX = corners.map(\.x).min()!, maxX = corners.map(\.x).max()!
        let minY = corners.map(\.y).min()!, maxY = corners.map(\.y).max()!
        let e = moved.extent
        #expect(abs(e.minX - minX) < 1e-6 && abs(e.maxX - maxX) < 1e-6 && abs(e.minY - minY) < 1e-6 && abs(e.maxY - maxY) < 1e-6, "\(e)")
        #expect(abs(e.width - 10) < 1e-6 && abs(e.height - 20) < 1e-6)
    }

    @Test func invertingTheChainComesBack() {
        let t = CGAffineTransform(scaleX: 2, y: 3).translatedBy(x: 5, y: -4).rotated(by: 0.3)
        let p = CGPoint(x: 7, y: 11)
        let back = p.applying(t).applying(t.inverted())
        #expect(abs(back.x - 7) < 1e-9 && abs(back.y - 11) < 1e-9)
    }
}
