// Command drlab is the dead-reckoning lab: it plays a true trajectory, publishes it as
// a local actor would, carries the updates over a modelled network and reckons them
// on the remote side every frame with each algorithm of package deadreckon (or with
// "game", exactly the dead reckoning the game ships: game.DeadReckoning(); or "path",
// the same publishing progress along a route where the truth follows one), then
// reports how far and how smoothly the remote view follows the truth. The engine is
// package lab; drlab turns flags into lab.Options.
//
// With no flags it reproduces Table 1.1 of Murphy's "Believable Dead Reckoning for
// Networked Games" (cubic Bézier against projective velocity blending on a circle).
//
// Usage:
//
//	drlab                                          # the Table 1.1 reproduction
//	drlab -scenario all -latency 150ms -rate 3     # every algorithm on every scenario
//	drlab -scenario circle,zigzag -algos pvb,pvb-ts -latency 150ms -clock-error 20ms
//	drlab -scenario eight -algos linear,pvb,bezier -plot eight.png
//	drlab -scenario all -algos game -latency 150ms -jitter 30ms -loss 0.1 -runs 3
//	drlab -scenario zigzag -algos game -loss 0.3 -loss-burst 4 -reorder 0.05
//	drlab -scenario patrol,patrol:7001 -algos game,path -latency 150ms -jitter 30ms -loss 0.1 -runs 3
//	drlab -budget -scenario all -algos pvb,bezier  # cheapest publishing for p95 < 0.25 m
//	drlab -trace drive.csv -json                   # a recorded t,x,y,z[,qw,qx,qy,qz] CSV
//	drlab -replay match.tread                      # every tank of a recorded match, over its recorded link
//	drlab -replay match.tread -latency 150ms -loss 0.05 -algos game,pvb   # its truths over a modelled link
//	drlab -replay match.tread -export-trace traces/ # and each truth as a -trace CSV
//
// Durations take Go syntax (150ms, 2s); fractions are 0..1. The same flags and seed
// give the same output, byte for byte. Run drlab -h for every flag.
package main
