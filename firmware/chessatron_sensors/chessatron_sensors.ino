// chessatron_sensors: tells the host which cells of the chess table hold a piece.
//
// One digital Hall switch (A3144, SS451A, ...) or reed switch under every cell of the table pulls an
// input of a chain of 74HC165 shift registers low when a piece's magnet is above it. On the request line
// "chessatron" the sketch latches all inputs at once, shifts them in and answers:
//
//   chessatron 1 12 10          protocol version, COLUMNS, ROWS
//   0,1,0,0,0,0,0,0,0,0,1,1     one line per table row, the top row (ROWS - 1) first,
//   ...                         column 0 first; 1 = a piece
//   end 42                      how many 1s the rows hold, so the host can check the rows
//
// Lines end in "\r\n". Any other request line is answered "error unknown command". The sketch prints
// nothing on its own, so the host can open the port at any time. Wiring: see ../README.md.

#include <Arduino.h>

// The table: columns along the gantry's X axis, rows along Y, as in chessatron's layout (table.toml).
#ifndef COLUMNS
#define COLUMNS 12
#endif
#ifndef ROWS
#define ROWS 10
#endif

#define CELLS (COLUMNS * ROWS)
#define CHIPS ((CELLS + 7) / 8)  // 74HC165s in the chain: 15 for the classic 12 x 10 table

#define PROTOCOL_VERSION 1
#define BAUD 115200

const uint8_t LOAD_PIN = 2;   // SH/LD (74HC165 pin 1) of every chip: low copies the inputs into the chain
const uint8_t CLOCK_PIN = 3;  // CLK (pin 2) of every chip: each rising edge shifts the chain by one bit
const uint8_t DATA_PIN = 4;   // QH (pin 9) of chip 0, the chip nearest the Arduino

// chips[c] bit k is input Dk of chip c (A = D0 ... H = D7); cell n = row * COLUMNS + column is wired to
// input n % 8 of chip n / 8. A 1 is a pulled-up input: no magnet.
uint8_t chips[CHIPS];

char request[16];
uint8_t requestLength = 0;
bool requestTooLong = false;

void readSensors() {
  // Latch every input at the same instant, so a piece sliding across the table is never seen twice.
  digitalWrite(LOAD_PIN, LOW);
  delayMicroseconds(5);
  digitalWrite(LOAD_PIN, HIGH);
  for (uint8_t c = 0; c < CHIPS; ++c) {
    uint8_t value = 0;
    for (uint8_t i = 0; i < 8; ++i) {
      // QH already shows input H of the chip after the latch: read first, then clock. (Arduino's
      // shiftIn() clocks first and would lose that bit.)
      value = (value << 1) | (digitalRead(DATA_PIN) == HIGH ? 1 : 0);
      digitalWrite(CLOCK_PIN, HIGH);
      digitalWrite(CLOCK_PIN, LOW);
    }
    chips[c] = value;
  }
}

bool isOccupied(uint16_t cell) {
  return ((chips[cell / 8] >> (cell % 8)) & 1) == 0;  // the sensors pull low: active low
}

void report() {
  readSensors();
  Serial.print(F("chessatron "));
  Serial.print(PROTOCOL_VERSION);
  Serial.print(' ');
  Serial.print(COLUMNS);
  Serial.print(' ');
  Serial.println(ROWS);
  uint16_t count = 0;
  for (int8_t row = ROWS - 1; row >= 0; --row) {
    for (uint8_t column = 0; column < COLUMNS; ++column) {
      if (column > 0) {
        Serial.print(',');
      }
      bool occupied = isOccupied((uint16_t)row * COLUMNS + column);
      count += occupied ? 1 : 0;
      Serial.print(occupied ? '1' : '0');
    }
    Serial.println();
  }
  Serial.print(F("end "));
  Serial.println(count);
}

void handleRequest() {
  request[requestLength] = '\0';
  if (requestTooLong) {
    Serial.println(F("error unknown command"));
  } else if (requestLength == 0) {
    // An empty line (a host sending "\r\n", or line noise) asks nothing.
  } else if (strcmp(request, "chessatron") == 0) {
    report();
  } else {
    Serial.println(F("error unknown command"));
  }
  requestLength = 0;
  requestTooLong = false;
}

void setup() {
  pinMode(LOAD_PIN, OUTPUT);
  pinMode(CLOCK_PIN, OUTPUT);
  pinMode(DATA_PIN, INPUT);
  digitalWrite(LOAD_PIN, HIGH);
  digitalWrite(CLOCK_PIN, LOW);
  Serial.begin(BAUD);
}

void loop() {
  while (Serial.available() > 0) {
    char c = (char)Serial.read();
    if (c == '\r') {
      continue;
    }
    if (c == '\n') {
      handleRequest();
    } else if (requestLength < sizeof(request) - 1) {
      request[requestLength++] = c;
    } else {
      requestTooLong = true;
    }
  }
}
