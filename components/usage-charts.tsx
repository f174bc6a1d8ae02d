"use client";
// The Usage page's two charts (visx: d3 scales and SVG shapes as React components, ~25 kB
// gzipped where Recharts 3 measured ~130 kB and Observable Plot ~90 kB). Imported by that page
// only, so no other page loads it. The server renders them at a default width; once live they
// redraw at their box's width so the labels keep their size on a phone. Colours are CSS variables
// (app/globals.css), so dark mode needs nothing here. The page shows each chart's numbers as text
// and in a table too; these are for the eye.
import { useEffect, useRef, useState, type ReactNode } from "react";
import { AxisBottom, AxisLeft, AxisRight } from "@visx/axis";
import { Group } from "@visx/group";
import { scaleBand, scaleLinear } from "@visx/scale";
import { BarStack, LinePath } from "@visx/shape";

export interface SpendSeries {
  name: string;
  /** CSS colour, e.g. var(--chart-1). */
  color: string;
  /** Micro-dollars per day, in the order of `days`. */
  micros: number[];
}

export interface RunsPerDay {
  succeeded: number[];
  failed: number[];
  /** Canceled, queued and running. */
  other: number[];
}

const HEIGHT = 220;
const MARGIN = { top: 12, right: 44, bottom: 28, left: 52 };
const AXIS = "var(--color-zinc-300)";
const LABEL = { fill: "var(--color-zinc-500)", fontSize: 11 };

/** The box's width once live; the server's guess before. */
function useWidth(initial: number) {
  const ref = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(initial);
  useEffect(() => {
    const box = ref.current;
    if (!box) return;
    const observer = new ResizeObserver(([entry]) => setWidth(Math.max(240, Math.floor(entry!.contentRect.width))));
    observer.observe(box);
    return () => observer.disconnect();
  }, []);
  return { ref, width };
}

/** About `most` ticks of the days, evenly spaced, always the first. */
function dayTicks(days: string[], width: number): string[] {
  const most = Math.max(2, Math.floor(width / 80));
  const step = Math.ceil(days.length / most);
  return days.filter((_, i) => i % step === 0);
}

const shortDay = (day: string) => {
  const [, month, date] = day.split("-");
  return `${Number(date)} ${["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"][Number(month) - 1]}`;
};

function Frame({
  days,
  width,
  max,
  yFormat,
  children,
  right,
}: {
  days: string[];
  width: number;
  max: number;
  yFormat: (v: number) => string;
  children: (x: DayScale, y: ValueScale) => ReactNode;
  right?: ReactNode;
}) {
  const inner = width - MARGIN.left - MARGIN.right;
  const x = scaleBand({ domain: days, range: [0, inner], padding: days.length > 60 ? 0.1 : 0.25 });
  const y = scaleLinear({
    domain: [0, max > 0 ? max : 1],
    range: [HEIGHT - MARGIN.top - MARGIN.bottom, 0],
    nice: true,
  });
  return (
    <svg
      width={width}
      height={HEIGHT}
      className="block max-w-full"
      aria-hidden="true"
      viewBox={`0 0 ${width} ${HEIGHT}`}
    >
      <Group left={MARGIN.left} top={MARGIN.top}>
        {children(x, y)}
        <AxisLeft
          scale={y}
          numTicks={4}
          tickFormat={(v) => yFormat(Number(v))}
          stroke={AXIS}
          tickStroke={AXIS}
          tickLabelProps={LABEL}
        />
        <AxisBottom
          scale={x}
          top={HEIGHT - MARGIN.top - MARGIN.bottom}
          tickValues={dayTicks(days, inner)}
          tickFormat={(d) => shortDay(String(d))}
          stroke={AXIS}
          tickStroke={AXIS}
          tickLabelProps={LABEL}
        />
        {right}
      </Group>
    </svg>
  );
}

/** Dollars on the axis with as many places as its steps need ($0.002, $0.50, $12). */
function usdAxis(maxMicros: number) {
  const step = maxMicros / 1e6 / 4;
  const places = step >= 1 ? 0 : Math.min(6, Math.max(2, Math.ceil(-Math.log10(step))));
  return (micros: number) => `$${(micros / 1e6).toFixed(places)}`;
}

type DayScale = ReturnType<typeof scaleBand<string>>;
type ValueScale = ReturnType<typeof scaleLinear<number>>;
type Row = Record<string, number> & { i: number };

/** A stack of bars per day, each piece with its own colour and a title to hover. */
function Stacks({
  rows,
  keys,
  colors,
  x,
  y,
  days,
  label,
}: {
  rows: Row[];
  keys: string[];
  colors: string[];
  x: DayScale;
  y: ValueScale;
  days: string[];
  label: (key: string, value: number) => string;
}) {
  return (
    <BarStack<Row, string> data={rows} keys={keys} x={(r) => days[r.i]!} xScale={x} yScale={y} color={() => ""}>
      {(stacks) =>
        stacks.flatMap((stack) =>
          stack.bars.map((bar) =>
            bar.bar[1] <= bar.bar[0] ? null : (
              <rect
                key={`${stack.key}-${bar.index}`}
                x={bar.x}
                y={bar.y}
                width={bar.width}
                height={Math.max(1, bar.height)}
                style={{ fill: colors[stack.index] }}
              >
                <title>{`${days[bar.index]} · ${label(stack.key, bar.bar[1] - bar.bar[0])}`}</title>
              </rect>
            ),
          ),
        )
      }
    </BarStack>
  );
}

/** Spend per day, stacked by model. */
export function SpendChart({ days, series }: { days: string[]; series: SpendSeries[] }) {
  const { ref, width } = useWidth(720);
  const rows: Row[] = days.map(
    (_, i) => Object.fromEntries([["i", i], ...series.map((s) => [s.name, s.micros[i]!])]) as Row,
  );
  const max = Math.max(0, ...days.map((_, i) => series.reduce((sum, s) => sum + s.micros[i]!, 0)));
  return (
    <div ref={ref}>
      <Frame days={days} width={width} max={max} yFormat={usdAxis(max)}>
        {(x, y) => (
          <Stacks
            rows={rows}
            keys={series.map((s) => s.name)}
            colors={series.map((s) => s.color)}
            x={x}
            y={y}
            days={days}
            label={(model, micros) => `${model}: $${(micros / 1e6).toFixed(6).replace(/0{1,4}$/, "")}`}
          />
        )}
      </Frame>
    </div>
  );
}

/** Runs per day by outcome, with the failure rate (failed / ended) as a line on its own axis. */
export function RunsChart({ days, runs }: { days: string[]; runs: RunsPerDay }) {
  const { ref, width } = useWidth(720);
  const totals = days.map((_, i) => runs.succeeded[i]! + runs.failed[i]! + runs.other[i]!);
  const max = Math.max(0, ...totals);
  const rate = days.map((_, i) => {
    const ended = runs.succeeded[i]! + runs.failed[i]!;
    return ended === 0 ? null : runs.failed[i]! / ended;
  });
  const parts = [
    { name: "succeeded", values: runs.succeeded, color: "var(--chart-ok)" },
    { name: "failed", values: runs.failed, color: "var(--chart-failed)" },
    { name: "canceled or unfinished", values: runs.other, color: "var(--chart-other)" },
  ];
  const rows: Row[] = days.map(
    (_, i) => Object.fromEntries([["i", i], ...parts.map((p) => [p.name, p.values[i]!])]) as Row,
  );
  const inner = HEIGHT - MARGIN.top - MARGIN.bottom;
  const rateY = scaleLinear({ domain: [0, 1], range: [inner, 0] });
  return (
    <div ref={ref}>
      <Frame
        days={days}
        width={width}
        max={max}
        yFormat={(v) => (Number.isInteger(v) ? String(v) : "")}
        right={
          <AxisRight
            scale={rateY}
            left={width - MARGIN.left - MARGIN.right}
            numTicks={4}
            tickFormat={(v) => `${Math.round(Number(v) * 100)}%`}
            stroke={AXIS}
            tickStroke={AXIS}
            tickLabelProps={LABEL}
          />
        }
      >
        {(x, y) => (
          <>
            <Stacks
              rows={rows}
              keys={parts.map((p) => p.name)}
              colors={parts.map((p) => p.color)}
              x={x}
              y={y}
              days={days}
              label={(outcome, n) => `${n} ${outcome}`}
            />
            <LinePath<number | null>
              data={rate}
              defined={(r) => r !== null}
              x={(_, i) => (x(days[i]!) ?? 0) + x.bandwidth() / 2}
              y={(r) => rateY(r ?? 0)}
              style={{ stroke: "var(--chart-rate)", fill: "none" }}
              strokeWidth={2}
            />
            {rate.map((r, i) =>
              r === null ? null : (
                <circle
                  key={days[i]}
                  cx={(x(days[i]!) ?? 0) + x.bandwidth() / 2}
                  cy={rateY(r)}
                  r={2.5}
                  style={{ fill: "var(--chart-rate)" }}
                >
                  <title>{`${days[i]}: ${Math.round(r * 100)}% failed`}</title>
                </circle>
              ),
            )}
          </>
        )}
      </Frame>
    </div>
  );
}
