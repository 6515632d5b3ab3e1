/*
 * Copyright 2026 the advisory-lock authors.
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *      https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */
package io.github.advisorylock.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.DelayQueue;
import java.util.concurrent.Delayed;
import java.util.concurrent.TimeUnit;

/**
 * A TCP relay on loopback that delays every byte by a fixed time in each direction, as a
 * network between hosts does: what a client sends arrives at the server that long later,
 * and the answer as long again, so a round trip costs twice the delay more than on
 * loopback. Each chunk read is stamped with the time it is due and queued; a writer
 * thread sends it when due, so back-to-back chunks are each delayed once, not by the sum
 * of the delays before them (no sleep per packet). Both sockets have {@code TCP_NODELAY}.
 * How late each chunk really went out is recorded, to say how exact the delay was.
 */
final class DelayRelay implements AutoCloseable {

	private static final int BUFFER = 64 * 1024;

	private final ServerSocket server;

	private final InetSocketAddress target;

	private final long delayNanos;

	private final List<Socket> sockets = new ArrayList<>();

	/** How late, beyond the delay, chunks were sent: nanoseconds, a bounded sample. */
	private final long[] lateness = new long[100_000];

	private int latenessCount;

	private volatile boolean closed;

	/**
	 * Start relaying connections on a free port of 127.0.0.1 to the target.
	 * @param target the server's address
	 * @param delay the delay in each direction; zero relays without delay
	 */
	DelayRelay(InetSocketAddress target, Duration delay) throws IOException {
		this.target = target;
		this.delayNanos = delay.toNanos();
		this.server = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
		Thread acceptor = new Thread(this::accept, "relay-accept-" + this.server.getLocalPort());
		acceptor.setDaemon(true);
		acceptor.start();
	}

	int port() {
		return this.server.getLocalPort();
	}

	/**
	 * Return how late, beyond the delay, the chunks relayed so far were sent: the median
	 * and the 99th percentile, in microseconds.
	 * @return the median and the p99
	 */
	synchronized double[] latenessMicros() {
		double[] micros = new double[this.latenessCount];
		for (int i = 0; i < micros.length; i++) {
			micros[i] = this.lateness[i] / 1e3;
		}
		Arrays.sort(micros);
		return new double[] { Summary.percentile(micros, 50), Summary.percentile(micros, 99) };
	}

	private synchronized void recordLateness(long nanos) {
		if (this.latenessCount < this.lateness.length) {
			this.lateness[this.latenessCount++] = nanos;
		}
	}

	private void accept() {
		while (!this.closed) {
			try {
				Socket client = this.server.accept();
				Socket upstream = new Socket();
				upstream.connect(this.target);
				client.setTcpNoDelay(true);
				upstream.setTcpNoDelay(true);
				synchronized (this.sockets) {
					this.sockets.add(client);
					this.sockets.add(upstream);
				}
				pipe(client, upstream, "up");
				pipe(upstream, client, "down");
			}
			catch (IOException ex) {
				if (!this.closed) {
					System.err.println("Relay: " + ex);
				}
			}
		}
	}

	/**
	 * Relay one direction: a reader stamps and queues what arrives, a writer sends it
	 * when due.
	 */
	private void pipe(Socket from, Socket to, String direction) throws IOException {
		InputStream in = from.getInputStream();
		OutputStream out = to.getOutputStream();
		DelayQueue<Chunk> queue = new DelayQueue<>();
		daemon(() -> {
			byte[] buffer = new byte[BUFFER];
			try {
				long sequence = 0;
				for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
					queue.put(new Chunk(System.nanoTime() + this.delayNanos, sequence++, Arrays.copyOf(buffer, read)));
				}
				queue.put(new Chunk(System.nanoTime() + this.delayNanos, sequence, null));
			}
			catch (IOException ex) {
				// The peer closed the connection: the writer ends with it.
				queue.put(new Chunk(System.nanoTime(), Long.MAX_VALUE, null));
			}
		}, "relay-read-" + direction + "-" + from.getPort());
		daemon(() -> {
			try {
				while (true) {
					Chunk chunk = queue.take();
					if (chunk.bytes() == null) {
						to.shutdownOutput();
						return;
					}
					recordLateness(System.nanoTime() - chunk.dueNanos());
					out.write(chunk.bytes());
					out.flush();
				}
			}
			catch (IOException | InterruptedException ex) {
				closeQuietly(to);
				closeQuietly(from);
			}
		}, "relay-write-" + direction + "-" + to.getPort());
	}

	private static void daemon(Runnable task, String name) {
		Thread thread = new Thread(task, name);
		thread.setDaemon(true);
		thread.start();
	}

	private static void closeQuietly(Socket socket) {
		try {
			socket.close();
		}
		catch (IOException ex) {
			// Closing anyway.
		}
	}

	@Override
	public void close() throws IOException {
		this.closed = true;
		this.server.close();
		synchronized (this.sockets) {
			this.sockets.forEach(DelayRelay::closeQuietly);
		}
	}

	/**
	 * Bytes read at one time, when they are due to be sent on, and their place in the
	 * stream, which keeps two chunks due at the same nanosecond in order; {@code null}
	 * bytes end the direction.
	 */
	private record Chunk(long dueNanos, long sequence, byte[] bytes) implements Delayed {

		@Override
		public long getDelay(TimeUnit unit) {
			return unit.convert(this.dueNanos - System.nanoTime(), TimeUnit.NANOSECONDS);
		}

		@Override
		public int compareTo(Delayed other) {
			Chunk chunk = (Chunk) other;
			int due = Long.compare(this.dueNanos, chunk.dueNanos);
			return (due != 0) ? due : Long.compare(this.sequence, chunk.sequence);
		}

	}

}
