import Crypto
import Testing
@testable import DrumNet

/// Pairing's protocol logic, without sockets (docs/protocol.md "Pairing").
struct PairingTests {
    static let keyText = "0123456789abcdef0123456789abcdef"
    static let key = PairingKey(bytes: Array(keyText.utf8))
    static let nonce = Array(UInt8(0)..<32)
    /// python3 -c 'import hmac,hashlib;print(hmac.new(b"0123456789abcdef0123456789abcdef",
    ///     bytes(range(32))+"pad-1".encode(), hashlib.sha256).hexdigest())'
    static let expectedHMAC = "d14c81c9ad63fb6b54294301dd389e998712bd442ed693e15d4f6a11dbdc17f8"
    static let welcome = DrumMessage.welcome(version: DrumMessage.protocolVersion, brainName: "studio", kitName: "Default")
    static let hello = DrumMessage.hello(version: 1, padName: "pad-1", drum: "snare")

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    func brain(key: PairingKey? = PairingTests.key) -> BrainConnection {
        BrainConnection(connectionID: 1, address: "127.0.0.1:5000", brainName: "studio", kitName: "Default",
                        key: key, nonce: key == nil ? [] : Self.nonce, nowMicros: 0)
    }

    @Test func answerMatchesPythonsHMACSHA256() {
        #expect(Self.hex(Self.key.answer(nonce: Self.nonce, padName: "pad-1")) == Self.expectedHMAC)
    }

    /// The pairing key's own SHA-256 and HMAC (DrumNet carries no swift-crypto, which imports
    /// Foundation): FIPS 180-4's and RFC 4231's vectors, and swift-crypto's answers on random
    /// keys and messages of every length around the block size.
    @Test func ownHMACSHA256MatchesTheStandardsVectorsAndSwiftCrypto() {
        #expect(Self.hex(DrumNet.SHA256.hash(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Self.hex(DrumNet.SHA256.hash([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(Self.hex(DrumNet.SHA256.hash(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
                    == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        // RFC 4231 test cases 1, 2 and 6 (a key longer than a block).
        #expect(Self.hex(DrumNet.SHA256.hmac(key: [UInt8](repeating: 0x0b, count: 20), message: Array("Hi There".utf8)))
                    == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        #expect(Self.hex(DrumNet.SHA256.hmac(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8)))
                    == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(Self.hex(DrumNet.SHA256.hmac(key: [UInt8](repeating: 0xaa, count: 131),
                                             message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)))
                    == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
        var generator = SystemRandomNumberGenerator()
        for length in Array(0...130) + [1000, 4096] {
            let key = (0..<(1 + length % 97)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let message = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let theirs = Array(Crypto.HMAC<Crypto.SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key)))
            #expect(DrumNet.SHA256.hmac(key: key, message: message) == theirs, "length \(length)")
        }
        #expect(DrumNet.SHA256.constantTimeEqual([1, 2, 3], [1, 2, 3]))
        #expect(!DrumNet.SHA256.constantTimeEqual([1, 2, 3], [1, 2, 4]) && !DrumNet.SHA256.constantTimeEqual([1, 2], [1, 2, 3]))
    }

    @Test func keyDescriptionNeverShowsTheKey() {
        #expect(!"\(Self.key)".contains(Self.keyText))
        #expect(!String(reflecting: Self.key).contains("0123456789"))
    }

    @Test func challengeAndAuthRoundTripOnTheWire() throws {
        for message in [DrumMessage.challenge(nonce: Self.nonce), .auth(hmac: [1, 2, 3, 4, 5])] {
            #expect(try DrumMessage(OSCDecoding.message(Array(message.packet.dropFirst(4)))) == message)
        }
    }

    /// What the brain answers, in order, to each opening (the last element of each row).
    static let brainTable: [(String, [DrumMessage], [BrainConnection.Action], Bool)] = [
        ("hello with key: challenge", [hello], [.send(.challenge(nonce: nonce))], false),
        ("right answer: welcome",
         [hello, .auth(hmac: key.answer(nonce: nonce, padName: "pad-1"))],
         [.send(.challenge(nonce: nonce)), .greeted, .send(welcome)], false),
        ("answer for another pad name: wrong key",
         [hello, .auth(hmac: key.answer(nonce: nonce, padName: "pad-2"))],
         [.send(.challenge(nonce: nonce)), .sendErrorAndClose(BrainConnection.wrongKeyMessage)], true),
        ("answer with another key: wrong key",
         [hello, .auth(hmac: PairingKey(bytes: Array("another key, 16+ bytes".utf8)).answer(nonce: nonce, padName: "pad-1"))],
         [.send(.challenge(nonce: nonce)), .sendErrorAndClose(BrainConnection.wrongKeyMessage)], true),
        ("hit before hello: refused", [.hit(DrumHit(drum: "snare"))],
         [.sendErrorAndClose(BrainConnection.needsKeyMessage)], true),
        ("hit before auth: refused", [hello, .hit(DrumHit(drum: "snare"))],
         [.send(.challenge(nonce: nonce)), .sendErrorAndClose(BrainConnection.needsKeyMessage)], true),
        ("unknown before auth: refused", [hello, .unknown(address: "/x")],
         [.send(.challenge(nonce: nonce)), .sendErrorAndClose(BrainConnection.needsKeyMessage)], true),
        ("ping before auth: answered", [.ping(timeMicros: 5, offsetMicros: nil, roundTripMicros: nil)],
         [.send(.pong(timeMicros: 5, brainTimeMicros: 7))], false),
    ]

    @Test(arguments: brainTable.indices)
    func brainWithKey(_ row: Int) {
        let (name, sent, expected, closed) = Self.brainTable[row]
        var c = brain()
        let actions = c.receive(sent.flatMap(\.packet), nowMicros: 7)
        #expect(actions == expected, "\(name)")
        #expect(c.isClosed == closed, "\(name)")
        #expect(c.statistics.errors == (closed ? 1 : 0), "\(name)")
    }

    @Test func pairedPadPlaysAndNothingAfterARefusalIsRead() {
        var c = brain()
        let hit = DrumHit(drum: "snare", velocity: 0.5)
        let paired = c.receive((
            [Self.hello, .auth(hmac: Self.key.answer(nonce: Self.nonce, padName: "pad-1")), .hit(hit)]).flatMap(\.packet),
            nowMicros: 1)
        #expect(paired.last == .deliver(hit, latencyMicros: nil) && c.isPaired)

        var refused = brain()
        let actions = refused.receive([DrumMessage.hit(hit), .hit(hit)].flatMap(\.packet), nowMicros: 1)
        #expect(actions == [.sendErrorAndClose(BrainConnection.needsKeyMessage)])
        #expect(refused.statistics.hits == 0)
    }

    @Test func brainWithoutKeyWelcomesAndPlaysAsBefore() {
        var c = brain(key: nil)
        let hit = DrumHit(drum: "kick")
        let actions = c.receive([Self.hello, .hit(hit)].flatMap(\.packet), nowMicros: 1)
        #expect(actions == [.greeted, .send(Self.welcome), .deliver(hit, latencyMicros: nil)])
    }

    func connectedPad(key: PairingKey?) -> PadLinkStateMachine {
        var pad = PadLinkStateMachine(key: key, padName: "pad-1")
        _ = pad.start()
        _ = pad.connectSucceeded()
        return pad
    }

    @Test func padWithKeyAnswersTheChallengeAndHoldsHitsUntilWelcomed() {
        var pad = connectedPad(key: Self.key)
        let early = pad.hitProduced()
        #expect(!early)
        let actions = pad.challengeReceived(nonce: Self.nonce)
        guard case .send(.auth(let hmac))? = actions.first, actions.count == 1 else {
            Issue.record("no auth: \(actions)"); return
        }
        #expect(Self.hex(hmac) == Self.expectedHMAC)
        #expect(pad.welcomeReceived() == [])  // challenged: nothing to say
        let sent = pad.hitProduced()
        #expect(sent)
    }

    @Test func padWithoutKeyReportsTheChallengeAndBacksOff() {
        var pad = connectedPad(key: nil)
        #expect(pad.challengeReceived(nonce: Self.nonce) == [.report(.brainNeedsKey), .close])
        #expect(pad.connectionLost() == [.stopPinging, .retry(afterMicros: pad.initialBackoffMicros)])
        #expect(pad.retryDue() == [.connect])
        _ = pad.connectSucceeded()
        _ = pad.challengeReceived(nonce: Self.nonce)
        #expect(pad.connectionLost() == [.stopPinging, .retry(afterMicros: 2 * pad.initialBackoffMicros)])
        #expect(pad.refusalsInARow == 2)
    }

    @Test func padWithWrongKeyBacksOffAfterTheBrainsError() {
        var pad = connectedPad(key: Self.key)
        _ = pad.challengeReceived(nonce: Self.nonce)
        pad.errorReceived()
        #expect(pad.connectionLost() == [.stopPinging, .retry(afterMicros: pad.initialBackoffMicros)])
        #expect(pad.refusalsInARow == 1)
    }

    @Test func padWithKeyMeetingABrainWithoutOneSaysSoOnce() {
        var pad = connectedPad(key: Self.key)
        #expect(pad.welcomeReceived() == [.report(.brainAsksNoKey)])
        _ = pad.connectionLost()
        _ = pad.retryDue()
        _ = pad.connectSucceeded()
        #expect(pad.welcomeReceived() == [])
        let sent = pad.hitProduced()
        #expect(sent)
    }
}
