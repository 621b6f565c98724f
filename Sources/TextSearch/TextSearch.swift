/// Finding text in text without Swift's string-processing module.
///
/// `"abc".contains("b")` and `firstRange(of:)` come from `_StringProcessing`, which links Swift's
/// regex engine in with it: about 0.9 MB of a board's static `drumpad`
/// (docs/deployment.md#build). The pad's modules search with these instead; `scripts/build-board`
/// fails if the module comes back.
extension StringProtocol {
    /// Whether `part` occurs in this text (compared as UTF-8 bytes; "" occurs nowhere, as with
    /// `contains`).
    public func includes(_ part: some StringProtocol) -> Bool {
        rangeOfBytes(part) != nil
    }

    /// The first place `part` occurs in this text, or nil.
    public func rangeOfText(_ part: some StringProtocol) -> Range<Index>? {
        guard let bytes = rangeOfBytes(part) else { return nil }
        let utf8 = self.utf8
        let lower = utf8.index(utf8.startIndex, offsetBy: bytes.lowerBound)
        let upper = utf8.index(lower, offsetBy: bytes.count)
        return lower..<upper
    }

    /// The first place `part` occurs, as offsets into the UTF-8 bytes.
    private func rangeOfBytes(_ part: some StringProtocol) -> Range<Int>? {
        let text = Array(utf8)
        let needle = Array(part.utf8)
        guard !needle.isEmpty, needle.count <= text.count else { return nil }
        for start in 0...(text.count - needle.count) where text[start..<(start + needle.count)].elementsEqual(needle) {
            return start..<(start + needle.count)
        }
        return nil
    }
}
