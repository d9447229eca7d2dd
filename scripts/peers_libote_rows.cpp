// Tiny driver for scripts/peers.sh: times one libOTe OT-extension row over
// TCP. libOTe's own frontend (frontend_libOTe, its TwoChooseOne example)
// runs the same calls, but it does not build with a standard library
// without <format> (libstdc++ before GCC 13), so this program makes them
// itself, the way the frontend does: sockets from coproto's asioConnect,
// libOTe's DefaultBaseOT, then one send / receive of n OTs and a flush.
// Unlike the frontend it also times the base OTs: it prints both.
//
//   peers_libote_rows ROLE PORT LOG_N ROW   (ROLE 1 = OT sender, listens; 0 = receiver)
//
// ROW: iknp | kos            random OT (chosen choice bits, hashed outputs)
//      iknp-nohash           IKNP without the output hash: Delta-OT (COT),
//                            chosen choice bits (the frontend's -iknp -noHash)
//      dkos                  Delta-KOS (KosDot), chosen choice bits
//      iknp-chosen           chosen-message OT
//      ss2 | ssmal2          SoftSpokenOT k = 2 random OT (semi-honest / malicious)
// The sender prints one line: "ROW n=<OTs> base_us=<us> ext_us=<us>".
#include "libOTe/Base/BaseOT.h"
#include "libOTe/TwoChooseOne/Iknp/IknpOtExtReceiver.h"
#include "libOTe/TwoChooseOne/Iknp/IknpOtExtSender.h"
#include "libOTe/TwoChooseOne/Kos/KosOtExtReceiver.h"
#include "libOTe/TwoChooseOne/Kos/KosOtExtSender.h"
#include "libOTe/TwoChooseOne/KosDot/KosDotExtReceiver.h"
#include "libOTe/TwoChooseOne/KosDot/KosDotExtSender.h"
#include "libOTe/TwoChooseOne/SoftSpokenOT/SoftSpokenMalOtExt.h"
#include "libOTe/TwoChooseOne/SoftSpokenOT/SoftSpokenShOtExt.h"
#include "coproto/Socket/AsioSocket.h"
#include "cryptoTools/Common/BitVector.h"
#include "cryptoTools/Crypto/PRNG.h"

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>

using namespace osuCrypto;
using Clock = std::chrono::steady_clock;

static long long us_since(Clock::time_point t) {
	return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t).count();
}

template <typename Sender, typename Receiver>
static void run(Sender sender, Receiver receiver, bool is_sender, bool chosen, u64 n,
                const std::string& row, cp::Socket& chl) {
	PRNG prng(sysRandomSeed());
	// Allocated before the clock, as in the frontend.
	AlignedUnVector<std::array<block, 2>> sMsgs(is_sender ? n : 0);
	AlignedUnVector<block> rMsgs(is_sender ? 0 : n);
	BitVector choice(is_sender ? 0 : n);
	if (!is_sender) choice.randomize(prng);
	if (is_sender && chosen) prng.get(sMsgs.data(), sMsgs.size());
	cp::sync_wait(chl.flush());

	auto start = Clock::now();
	// Base OTs, roles swapped.
	if (is_sender) {
		DefaultBaseOT base;
		BitVector bv(sender.baseOtCount());
		std::vector<block> baseMsg(sender.baseOtCount());
		bv.randomize(prng);
		cp::sync_wait(base.receive(bv, baseMsg, prng, chl));
		sender.setBaseOts(baseMsg, bv);
	} else {
		DefaultBaseOT base;
		std::vector<std::array<block, 2>> baseMsg(receiver.baseOtCount());
		cp::sync_wait(base.send(baseMsg, prng, chl));
		receiver.setBaseOts(baseMsg);
	}
	long long base_us = us_since(start);

	auto ext = Clock::now();
	if (is_sender) {
		if (chosen) cp::sync_wait(sender.sendChosen(sMsgs, prng, chl));
		else cp::sync_wait(sender.send(sMsgs, prng, chl));
	} else {
		if (chosen) cp::sync_wait(receiver.receiveChosen(choice, rMsgs, prng, chl));
		else cp::sync_wait(receiver.receive(choice, rMsgs, prng, chl));
	}
	cp::sync_wait(chl.flush());
	long long ext_us = us_since(ext);
	if (is_sender)
		std::cout << row << " n=" << n << " base_us=" << base_us << " ext_us=" << ext_us << std::endl;
}

int main(int argc, char** argv) {
	if (argc != 5) {
		std::cerr << "usage: " << argv[0] << " ROLE PORT LOG_N ROW\n";
		return 2;
	}
	bool is_sender = std::atoi(argv[1]) == 1;
	std::string port = argv[2];
	u64 n = u64{1} << std::atoi(argv[3]);
	std::string row = argv[4];

	cp::Socket chl = cp::asioConnect("localhost:" + port, is_sender);
	if (row == "iknp" || row == "iknp-chosen") {
		run(IknpOtExtSender{}, IknpOtExtReceiver{}, is_sender, row == "iknp-chosen", n, row, chl);
	} else if (row == "iknp-nohash") {
		IknpOtExtSender s;
		IknpOtExtReceiver r;
		s.mHashType = HashType::NoHash;
		r.mHashType = HashType::NoHash;
		run(std::move(s), std::move(r), is_sender, false, n, row, chl);
	} else if (row == "kos") {
		run(KosOtExtSender{}, KosOtExtReceiver{}, is_sender, false, n, row, chl);
	} else if (row == "dkos") {
		run(KosDotExtSender{}, KosDotExtReceiver{}, is_sender, false, n, row, chl);
	} else if (row == "ss2") {
		run(SoftSpokenShOtSender<>(2), SoftSpokenShOtReceiver<>(2), is_sender, false, n, row, chl);
	} else if (row == "ssmal2") {
		run(SoftSpokenMalOtSender(2), SoftSpokenMalOtReceiver(2), is_sender, false, n, row, chl);
	} else {
		std::cerr << "unknown row " << row << "\n";
		return 2;
	}
	cp::sync_wait(chl.close());
	return 0;
}
