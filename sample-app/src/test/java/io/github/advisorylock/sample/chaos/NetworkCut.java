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

package io.github.advisorylock.sample.chaos;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

/**
 * A TCP relay on loopback between one instance and a server port (PostgreSQL's, or
 * PgBouncer's) whose traffic can be cut and restored: while cut, it forwards nothing in
 * either direction and closes nothing, as a link that stops carrying packets without a
 * reset looks to both ends; what arrives meanwhile is kept and sent once it is restored.
 * Like test-support's {@code FreezableRelay}, with a way back. The target port stays the
 * same for the whole run (a restart and a failover keep the servers' ports).
 *
 * @author advisory-lock authors
 */
final class NetworkCut implements AutoCloseable {

	private final ServerSocket server;

	private final int targetPort;

	private final List<Socket> sockets = new ArrayList<>();

	private final Object gate = new Object();

	private boolean cut;

	private volatile boolean closed;

	/**
	 * Start relaying connections on a free loopback port to a port of localhost.
	 * @param targetPort the port to relay to
	 * @throws IOException if no port can be opened
	 */
	NetworkCut(int targetPort) throws IOException {
		this.targetPort = targetPort;
		this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		daemon(this::accept, "chaos-relay-" + this.server.getLocalPort() + "-to-" + targetPort);
	}

	/**
	 * Return the port the relay listens on.
	 * @return the port
	 */
	int port() {
		return this.server.getLocalPort();
	}

	/**
	 * Stop forwarding, in both directions, on every connection, now and later.
	 */
	void cut() {
		synchronized (this.gate) {
			this.cut = true;
		}
	}

	/**
	 * Forward again, what was held back first.
	 */
	void restore() {
		synchronized (this.gate) {
			this.cut = false;
			this.gate.notifyAll();
		}
	}

	private void accept() {
		while (!this.closed) {
			Socket client;
			try {
				client = this.server.accept();
			}
			catch (IOException ex) {
				continue;
			}
			try {
				Socket upstream = new Socket(InetAddress.getLoopbackAddress(), this.targetPort);
				synchronized (this.sockets) {
					this.sockets.removeIf(Socket::isClosed);
					this.sockets.add(client);
					this.sockets.add(upstream);
				}
				daemon(() -> pump(client, upstream), "chaos-relay-up-" + client.getPort());
				daemon(() -> pump(upstream, client), "chaos-relay-down-" + client.getPort());
			}
			catch (IOException ex) {
				// The server is down (a restart, a failover): the client sees its
				// connection closed at once, as it would see it refused, and pgjdbc tries
				// the next host.
				closeQuietly(client);
			}
		}
	}

	private void pump(Socket from, Socket to) {
		byte[] buffer = new byte[64 * 1024];
		try {
			InputStream in = from.getInputStream();
			OutputStream out = to.getOutputStream();
			for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
				awaitRestored();
				out.write(buffer, 0, read);
				out.flush();
			}
			awaitRestored();
			to.shutdownOutput();
			if (from.isOutputShutdown()) {
				// Both directions ended.
				closeQuietly(from);
				closeQuietly(to);
			}
		}
		catch (IOException | InterruptedException ex) {
			// The relay closed, or a peer reset: end both sides.
			closeQuietly(from);
			closeQuietly(to);
		}
	}

	private void awaitRestored() throws InterruptedException, IOException {
		synchronized (this.gate) {
			while (this.cut && !this.closed) {
				this.gate.wait();
			}
		}
		if (this.closed) {
			throw new IOException("relay closed");
		}
	}

	private static void closeQuietly(Socket socket) {
		try {
			socket.close();
		}
		catch (IOException ex) {
			// Closing anyway.
		}
	}

	private static void daemon(Runnable task, String name) {
		Thread thread = new Thread(task, name);
		thread.setDaemon(true);
		thread.start();
	}

	@Override
	public void close() {
		this.closed = true;
		synchronized (this.gate) {
			this.gate.notifyAll();
		}
		try {
			this.server.close();
		}
		catch (IOException ex) {
			// Closing the connections anyway.
		}
		synchronized (this.sockets) {
			this.sockets.forEach(NetworkCut::closeQuietly);
		}
	}

}
