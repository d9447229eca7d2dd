// Tiny driver for scripts/peers.sh: times one emp-ot row. emp-ot's own
// bench programs of May 2026 time random-choice RCOT only, and do not touch
// their output buffers before the clock (so the first-touch page faults of
// the outputs are billed to the protocol; emp-ot's later bench helpers
// pre-touch them). This program times every row the way those later
// helpers do: output buffers allocated and touched before the clock, both
// parties synchronised (io->sync()), then the clock around one call and
// the flush after it. Each row uses a fresh extension object, so its base
// OTs (bootstrapped lazily in the first call) are inside the clock.
//
//   peers_emp_rows PARTY PORT LOG_N ROW     (PARTY 1 = sender, listens)
//
// ROW: iknp-rot | kos-rot       random OT (chosen choice bits, hashed outputs)
//      iknp-cot | kos-cot       Delta-OT / correlated OT, chosen choice bits
//      iknp-rcot | kos-rcot     random correlated OT, random choice bits
//      iknp-ot                  chosen-message OT
//      ss2-rot | ssmal2-rot     SoftSpokenOT k = 2 random OT
//      ss2-cot | ss2-rcot       SoftSpokenOT k = 2 Delta-OT (chosen / random choice bits)
// "kos" is emp-ot's IKNP with malicious = true (the KOS15 check).
// Party 1 prints one line: "ROW n=<OTs> us=<microseconds>".
//
// Written against the emp-ot API of May 2026 (NetIO(addr, port, quiet),
// IKNP(party, io, malicious), SoftSpokenOT<k>(party, io, malicious)).
#include <emp-tool/emp-tool.h>
#include "emp-ot/emp-ot.h"

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

using namespace emp;

static block* touched_blocks(int64_t n) {
	block* p = new block[n];
	std::memset(p, 0, sizeof(block) * (size_t)n);
	return p;
}

template <typename T>
static long long time_row(const std::string& kind, T* ot, NetIO* io, int party, int64_t n) {
	bool sender = party == ALICE;
	block* a = touched_blocks(n);
	block* b = (kind == "rot" || kind == "ot") && sender ? touched_blocks(n) : nullptr;
	bool* choice = new bool[n];
	PRG prg;
	prg.random_bool(choice, n);
	if (kind == "ot" && sender) {
		prg.random_block(a, n);
		prg.random_block(b, n);
	}

	io->sync();
	auto start = clock_start();
	if (kind == "rot") {
		if (sender) ot->send_rot(a, b, n);
		else ot->recv_rot(a, choice, n);
	} else if (kind == "cot") {
		if (sender) ot->send_cot(a, n);
		else ot->recv_cot(a, choice, n);
	} else if (kind == "rcot") {
		ot->rcot(a, n);
	} else {
		if (sender) ot->send(a, b, n);
		else ot->recv(a, choice, n);
	}
	io->flush();
	long long us = time_from(start);

	delete[] a;
	delete[] b;
	delete[] choice;
	return us;
}

int main(int argc, char** argv) {
	if (argc != 5) {
		std::cerr << "usage: " << argv[0] << " PARTY PORT LOG_N ROW\n";
		return 2;
	}
	int party = std::atoi(argv[1]);
	int port = std::atoi(argv[2]);
	int64_t n = int64_t{1} << std::atoi(argv[3]);
	std::string row = argv[4];
	std::string proto = row.substr(0, row.find('-'));
	std::string kind = row.find('-') == std::string::npos ? "" : row.substr(row.find('-') + 1);
	if (kind != "rot" && kind != "cot" && kind != "rcot" && kind != "ot") {
		std::cerr << "unknown row " << row << "\n";
		return 2;
	}
	NetIO io(party == ALICE ? nullptr : "127.0.0.1", port, /*quiet=*/true);

	long long us;
	if (proto == "iknp" || proto == "kos") {
		IKNP ot(party, &io, /*malicious=*/proto == "kos");
		us = time_row(kind, &ot, &io, party, n);
	} else if (proto == "ss2" || proto == "ssmal2") {
		SoftSpokenOT<2> ot(party, &io, /*malicious=*/proto == "ssmal2");
		us = time_row(kind, &ot, &io, party, n);
	} else {
		std::cerr << "unknown row " << row << "\n";
		return 2;
	}
	if (party == ALICE) std::cout << row << " n=" << n << " us=" << us << std::endl;
	return 0;
}
